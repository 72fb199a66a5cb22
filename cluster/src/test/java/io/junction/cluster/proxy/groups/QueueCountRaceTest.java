package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two proxies growing one topic's queue count, the first one's write of the topic configuration (the logical queue
 * count routes show, and the metadata group's own physical queues) landing after the second one's scaling finished:
 * the configuration still ends with every queue of the placement, and every logical queue takes and gives back a
 * message. Without the repair the late write left 4 configured queues under a 6-queue placement, hiding queues 4
 * and 5 (one of them a physical queue of the metadata group). Real stores; the order forced by holding the first
 * proxy's configuration write until the second's scaling is done.
 */
class QueueCountRaceTest {
    private static final String TOPIC = "growing";

    @TempDir
    Path dir;

    private ThreeStores stores;
    private final CompletableFuture<Void> release = new CompletableFuture<>();
    private volatile boolean holding;

    @BeforeEach
    void start() {
        stores = new ThreeStores(dir);
    }

    @AfterEach
    void stop() {
        stores.close();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }


    /** The metadata group's topic admin, whose topic writes wait for {@link #release} while {@link #holding}. */
    private Messaging.TopicAdmin slowTopics(final Messaging.TopicAdmin target) {
        return new Messaging.TopicAdmin() {
            @Override
            public CompletableFuture<TopicConfig> createOrUpdate(final TopicConfig config) {
                return holding ? release.thenCompose(v -> target.createOrUpdate(config))
                        : target.createOrUpdate(config);
            }

            @Override
            public CompletableFuture<TopicConfig> createIfAbsent(final TopicConfig config) {
                return target.createIfAbsent(config);
            }

            @Override
            public CompletableFuture<Boolean> delete(final String topic) {
                return target.delete(topic);
            }

            @Override
            public Optional<TopicConfig> get(final String topic) {
                return target.get(topic);
            }

            @Override
            public Collection<TopicConfig> list() {
                return target.list();
            }

            @Override
            public CompletableFuture<Long> sealQueue(final String topic, final int queueId) {
                return target.sealQueue(topic, queueId);
            }
        };
    }

    @Test
    void shouldConfigureEveryPlacedQueueWhenALateWriteOfASmallerCountLandsLast() throws Exception {
        final MessageStore metadata = stores.metadata();
        final GroupedMessaging a = stores.proxy(InterceptedMessaging.withTopics(metadata,
                slowTopics(metadata.topics())));
        final GroupedMessaging b = stores.proxy(metadata);
        get(b.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        assertThat(b.placement(TOPIC).format()).isEqualTo("g1;g2");

        holding = true;
        final CompletableFuture<TopicPlacement> byA = a.scale(TOPIC, 4, List.of("g2", "g3"));
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> b.placement(TOPIC).queueCount() == 4);
        final TopicPlacement byB = get(b.scale(TOPIC, 6, List.of("g1", "g3")));
        assertThat(byB.queueCount()).isEqualTo(6);
        assertThat(byB.queue(4).get(0).group()).as(byB.format()).isEqualTo("g1");
        holding = false;
        release.complete(null);
        get(byA);

        assertThat(metadata.topics().get(TOPIC).orElseThrow().queueCount()).as(b.placement(TOPIC).format())
                .isEqualTo(6);
        assertThat(b.route(TOPIC).orElseThrow().queueCount()).isEqualTo(6);
        for (int q = 0; q < 6; q++) {
            final String body = "to-" + q;
            final SendResult sent = get(b.send(Message.builder(TOPIC).queueId(q)
                    .body(body.getBytes(StandardCharsets.UTF_8)).build()));
            assertThat(sent.queueId()).isEqualTo(q);
            final PullResult read = get(b.pull(new PullRequest("reader", TOPIC, q, sent.queueOffset(), 1,
                    MessageFilter.ALL, 0)));
            assertThat(read.messages()).as("logical queue %d", q).hasSize(1);
            assertThat(new String(read.messages().get(0).bodyBytes(), StandardCharsets.UTF_8)).isEqualTo(body);
        }
    }
}
