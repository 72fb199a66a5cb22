package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.cluster.contract.ContractServer;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scaling a topic across two store groups (real stores behind real contract servers, two proxies over real sockets):
 * a queue's writes move from g1 to g2 while a producer sends through the other proxy; the seal fences g1, the
 * producer's refused sends go to the new segment, and the logical queue reads as one gapless sequence.
 */
class QueueScalingTest {
    private static final int MAX_MESSAGE = 256 * 1024;
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final String TOPIC = "scaled";

    @TempDir
    Path dir;

    private final List<MessageStore> stores = new ArrayList<>();
    private final List<ContractServer> servers = new ArrayList<>();
    private final List<GroupedProxy> proxies = new ArrayList<>();

    @BeforeEach
    void start() {
        for (int i = 0; i < 2; i++) {
            final MessageStore store = MessageStore.open(TestStores.small(dir.resolve("s" + i)).build());
            stores.add(store);
            servers.add(ContractServer.start("127.0.0.1", 0, () -> store, MAX_MESSAGE));
        }
        proxies.add(startProxy());
        proxies.add(startProxy());
    }

    private GroupedProxy startProxy() {
        final List<StoreGroup> list = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            list.add(new StoreGroup("g" + (i + 1), List.of("127.0.0.1:" + servers.get(i).address().getPort())));
        }
        return GroupedProxy.start(list, MAX_MESSAGE, SETTLE);
    }

    @AfterEach
    void stop() {
        proxies.forEach(GroupedProxy::close);
        servers.forEach(ContractServer::close);
        stores.forEach(MessageStore::close);
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static Message message(final int queue, final String body) {
        return Message.builder(TOPIC).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldMoveAQueueToAnotherGroupUnderLoadWithEveryAcknowledgedMessageOnceAndInOrder() throws Exception {
        final Messaging scaler = proxies.get(0).messaging();
        final Messaging sender = proxies.get(1).messaging();
        get(scaler.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        assertThat(((GroupedMessaging) scaler).placement(TOPIC).format()).isEqualTo("g1;g2");
        await().atMost(SETTLE).until(() -> ((GroupedMessaging) sender).placement(TOPIC) != null);

        final List<SendResult> acknowledged = new CopyOnWriteArrayList<>();
        final List<String> acknowledgedBodies = new CopyOnWriteArrayList<>();
        final AtomicInteger refused = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread producer = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                try {
                    acknowledged.add(get(sender.send(message(0, "m" + i))));
                    acknowledgedBodies.add("m" + i);
                } catch (Exception e) {
                    refused.incrementAndGet();
                }
            }
        }, "scaling-producer");
        producer.start();
        await().atMost(SETTLE).until(() -> acknowledged.size() >= 200);

        final TopicPlacement after = get(((GroupedMessaging) scaler).scale(TOPIC, 2, List.of("g2")));
        final int atScale = acknowledged.size();
        await().atMost(SETTLE).until(() -> acknowledged.size() >= atScale + 200);
        stop.set(true);
        producer.join();

        final QueueSegment sealed = after.queue(0).get(0);
        final QueueSegment open = after.openSegment(0);
        assertThat(after.queue(0)).hasSize(2);
        assertThat(sealed.group()).isEqualTo("g1");
        assertThat(sealed.open()).isFalse();
        assertThat(open.group()).isEqualTo("g2");
        assertThat(open.logicalStart()).isEqualTo(sealed.sealedEnd());
        assertThat(open.physicalQueue()).as("a physical queue free on g2 (its queue 1 is logical queue 1)")
                .isEqualTo(2);
        assertThat(after.queue(1)).containsExactly(QueueSegment.fresh("g2", 1));
        assertThat(refused.get()).as("sends racing the seal are sent again, not failed").isZero();

        // The acknowledged logical offsets are one gapless sequence in send order.
        for (int i = 0; i < acknowledged.size(); i++) {
            assertThat(acknowledged.get(i).queueId()).isZero();
            assertThat(acknowledged.get(i).queueOffset()).isEqualTo(i);
        }
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stores.get(0).maxOffset(TOPIC, 0)).as("g1 stored nothing past the seal")
                .isEqualTo(sealed.sealedEnd());
        assertThat(sealed.sealedEnd()).isGreaterThanOrEqualTo(200);
        assertThatThrownBy(() -> get(stores.get(0).send(message(0, "behind the fence"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.QUEUE_SEALED));

        // An offset consumer reads the logical queue from 0 to its end: every acknowledged message once, in order.
        final Messaging reader = proxies.get(1).messaging();
        await().atMost(SETTLE).until(() -> reader.maxOffset(TOPIC, 0) == acknowledged.size());
        final List<StoredMessage> read = new ArrayList<>();
        long offset = 0;
        while (offset < acknowledged.size()) {
            final PullResult r = get(reader.pull(new PullRequest("reader", TOPIC, 0, offset, 64, MessageFilter.ALL,
                    0)));
            read.addAll(r.messages());
            assertThat(r.nextOffset()).isGreaterThan(offset);
            offset = r.nextOffset();
        }
        assertThat(read).extracting(QueueScalingTest::body).containsExactlyElementsOf(acknowledgedBodies);
        assertThat(read).extracting(StoredMessage::queueOffset)
                .containsExactlyElementsOf(acknowledged.stream().map(SendResult::queueOffset).toList());

        // POP gets every message once from both groups.
        final Set<String> popped = new HashSet<>();
        final AtomicInteger duplicates = new AtomicInteger();
        await().atMost(SETTLE).until(() -> {
            final PopResult r = get(reader.pop(new PopRequest("popper", TOPIC, MessageFilter.ALL, 32, 60_000, 0)));
            for (PoppedMessage m : r.messages()) {
                if (!popped.add(body(m.message()))) {
                    duplicates.incrementAndGet();
                }
            }
            return popped.size() >= acknowledgedBodies.size();
        });
        assertThat(popped).containsExactlyInAnyOrderElementsOf(acknowledgedBodies);
        assertThat(duplicates.get()).isZero();
    }

    @Test
    void shouldAddQueuesOnTheNamedGroupsAndKeepPlacedOnes() throws Exception {
        final GroupedMessaging messaging = (GroupedMessaging) proxies.get(0).messaging();
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        get(messaging.send(message(0, "before")));

        final TopicPlacement after = get(messaging.scale(TOPIC, 4, List.of("g1", "g2")));
        assertThat(after.format()).as("placed queues stay, new ones go to the least loaded named groups")
                .isEqualTo("g1;g2;g1;g2:2:0:0:-");
        assertThat(messaging.route(TOPIC).orElseThrow().queueCount()).isEqualTo(4);
        assertThat(stores.get(1).route(TOPIC).orElseThrow().queueCount()).isEqualTo(3);
        for (int q = 0; q < 4; q++) {
            assertThat(get(messaging.send(message(q, "q" + q))).queueOffset()).isEqualTo(q == 0 ? 1 : 0);
        }
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stores.get(1).maxOffset(TOPIC, 2)).as("logical queue 3 is g2's physical queue 2").isEqualTo(1);
        assertThat(get(messaging.scale(TOPIC, 4, List.of("g1", "g2"))).format()).as("nothing to do twice")
                .isEqualTo(after.format());
    }

    @Test
    void shouldScaleATopicThatLivedWhollyOnTheMetadataGroup() throws Exception {
        get(stores.get(0).topics().createOrUpdate(TopicConfig.of(TOPIC, 1)));
        final GroupedMessaging messaging = (GroupedMessaging) proxies.get(0).messaging();
        await().atMost(SETTLE).until(() -> messaging.route(TOPIC).isPresent());
        assertThat(messaging.placement(TOPIC)).isNull();
        get(messaging.send(message(0, "a")));
        get(messaging.send(message(0, "b")));

        final TopicPlacement after = get(messaging.scale(TOPIC, 1, List.of("g2")));
        assertThat(after.format()).isEqualTo("g1:0:0:0:2,g2:0:2:0:-");
        assertThat(get(messaging.send(message(0, "c"))).queueOffset()).isEqualTo(2);
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stores.get(1).maxOffset(TOPIC, 0)).isEqualTo(1);
        final PullResult first = get(messaging.pull(new PullRequest("r", TOPIC, 0, 0, 10, MessageFilter.ALL, 0)));
        final List<StoredMessage> read = new ArrayList<>(first.messages());
        read.addAll(get(messaging.pull(new PullRequest("r", TOPIC, 0, first.nextOffset(), 10, MessageFilter.ALL, 0)))
                .messages());
        assertThat(read).extracting(QueueScalingTest::body).containsExactly("a", "b", "c");
    }

    @Test
    void shouldRefuseScalingThatWouldRemoveQueuesOrNameUnknownGroups() throws Exception {
        final GroupedMessaging messaging = (GroupedMessaging) proxies.get(0).messaging();
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        assertThatThrownBy(() -> get(messaging.scale(TOPIC, 1, List.of("g2"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        assertThatThrownBy(() -> get(messaging.scale(TOPIC, 2, List.of("g9"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        assertThatThrownBy(() -> get(messaging.scale(TOPIC, 2, List.of("g1"))))
                .as("a queue never moves onto the metadata group")
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        assertThatThrownBy(() -> get(messaging.scale("missing", 2, List.of("g2"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.TOPIC_NOT_FOUND));
        assertThat(messaging.placement(TOPIC).format()).isEqualTo("g1;g2");
    }
}
