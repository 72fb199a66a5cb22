package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scaling whose placement write loses every race (the metadata group's compare-and-set always finds another
 * placement kept): after {@value QueueScaler#ATTEMPTS} plans it gives up with {@link ScalingConflict} (the admin
 * API's 409), the placement kept is the one from before, untouched, and so is the topic's configuration; the queues
 * it sealed are moved by the next scaling, and every message sent before and after is read once, in order, across
 * the seam at the end the seals answered. Real stores.
 */
class ScalingConflictTest {
    private static final String TOPIC = "contended";

    @TempDir
    Path dir;

    private ThreeStores stores;

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


    /** The metadata group's key-value configs, whose compare-and-set loses every time (counted). */
    private static Messaging.KvConfigs alwaysLosing(final Messaging.KvConfigs target, final AtomicInteger lost) {
        return new Messaging.KvConfigs() {
            @Override
            public CompletableFuture<Void> put(final String namespace, final String key, final String value) {
                return target.put(namespace, key, value);
            }

            @Override
            public Optional<String> get(final String namespace, final String key) {
                return target.get(namespace, key);
            }

            @Override
            public CompletableFuture<Boolean> delete(final String namespace, final String key) {
                return target.delete(namespace, key);
            }

            @Override
            public CompletableFuture<Boolean> replace(final String namespace, final String key, final String expected,
                                                      final String value) {
                lost.incrementAndGet();
                return CompletableFuture.completedFuture(false);
            }

            @Override
            public SortedMap<String, String> list(final String namespace) {
                return target.list(namespace);
            }
        };
    }

    private void send(final Messaging via, final int queue, final String body) throws Exception {
        get(via.send(Message.builder(TOPIC).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).build()));
    }

    /** Every body of a logical queue from offset 0, checking the offsets are 0, 1, 2 ... */
    private static List<String> readAll(final Messaging via, final int queue) throws Exception {
        final List<String> bodies = new ArrayList<>();
        long offset = 0;
        while (true) {
            final PullResult r = get(via.pull(new PullRequest("reader", TOPIC, queue, offset, 32, MessageFilter.ALL,
                    0)));
            if (r.messages().isEmpty()) {
                return bodies;
            }
            for (StoredMessage m : r.messages()) {
                assertThat(m.queueOffset()).as("queue %d", queue).isEqualTo(bodies.size());
                bodies.add(new String(m.bodyBytes(), StandardCharsets.UTF_8));
            }
            offset = r.nextOffset();
        }
    }

    @Test
    void shouldGiveUpAfterEightLostRacesLeavingThePlacementAsItWas() throws Exception {
        final MessageStore metadata = stores.metadata();
        final GroupedMessaging fair = stores.proxy(metadata);
        get(fair.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        for (int i = 0; i < 3; i++) {
            send(fair, 0, "q0-" + i);
            send(fair, 1, "q1-" + i);
        }
        final String before = metadata.kvConfigs().get(PlacementBook.NAMESPACE, TOPIC).orElseThrow();
        assertThat(before).isEqualTo("g1;g2");

        final AtomicInteger lost = new AtomicInteger();
        final GroupedMessaging losing = stores.proxy(InterceptedMessaging.withKvConfigs(metadata,
                alwaysLosing(metadata.kvConfigs(), lost)));
        assertThatThrownBy(() -> get(losing.scale(TOPIC, 2, List.of("g3"))))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ScalingConflict.class)
                .hasMessageContaining("changed under each of " + QueueScaler.ATTEMPTS + " attempts");
        assertThat(lost.get()).isEqualTo(QueueScaler.ATTEMPTS);

        // Nothing of the lost plans was written: the placement, the topic's configuration, no other placement.
        assertThat(metadata.kvConfigs().list(PlacementBook.NAMESPACE)).containsExactly(Map.entry(TOPIC, before));
        assertThat(metadata.topics().get(TOPIC).orElseThrow().queueCount()).isEqualTo(2);

        // Its seals stay (no write lands past them); the next scaling seals again at the same ends and moves them.
        final TopicPlacement moved = get(fair.scale(TOPIC, 2, List.of("g3")));
        assertThat(moved.format()).matches("g1:0:0:0:3,g3:[0-9]+:3:0:-;g2:1:0:0:3,g3:[0-9]+:3:0:-");
        for (int i = 3; i < 5; i++) {
            send(fair, 0, "q0-" + i);
            send(fair, 1, "q1-" + i);
        }
        assertThat(readAll(fair, 0)).containsExactly("q0-0", "q0-1", "q0-2", "q0-3", "q0-4");
        assertThat(readAll(fair, 1)).containsExactly("q1-0", "q1-1", "q1-2", "q1-3", "q1-4");
    }
}
