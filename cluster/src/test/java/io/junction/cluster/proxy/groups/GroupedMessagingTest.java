package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two store groups of one replica each (real stores behind real contract servers) behind one {@link GroupedProxy},
 * over real sockets: a topic's queues spread over both groups, offset reads per logical queue (across a sealed
 * segment's seam too), POP over both groups with acks routed back, and placement that survives a proxy restart and
 * the addition of a group.
 */
class GroupedMessagingTest {
    private static final Duration SETTLE = SingleReplicaGroups.SETTLE;
    private static final String TOPIC = "orders";

    @TempDir
    Path dir;

    private SingleReplicaGroups groups;
    private List<MessageStore> stores;
    private GroupedProxy proxy;
    private Messaging messaging;

    @BeforeEach
    void start() {
        groups = new SingleReplicaGroups(dir, 2);
        stores = groups.stores();
        proxy = startProxy(2);
        messaging = proxy.messaging();
    }

    private GroupedProxy startProxy(final int count) {
        return GroupedProxy.start(groups.first(count), SingleReplicaGroups.MAX_MESSAGE, SETTLE);
    }

    @AfterEach
    void stop() {
        proxy.close();
        groups.close();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static Message message(final String topic, final int queue, final String body) {
        return Message.builder(topic).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).keys("k-" + body)
                .build();
    }

    private static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    private long stored(final MessageStore store, final String topic, final int queues) {
        long total = 0;
        for (int q = 0; q < queues; q++) {
            total += store.maxOffset(topic, q);
        }
        return total;
    }

    @Test
    void shouldSpreadAFourQueueTopicOverBothGroups() throws Exception {
        final TopicConfig created = get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 4)));
        assertThat(created.queueCount()).isEqualTo(4);
        assertThat(messaging.route(TOPIC).orElseThrow().queueCount()).as("routes show the logical queues")
                .isEqualTo(4);
        assertThat(((GroupedMessaging) messaging).placement(TOPIC).format()).isEqualTo("g1;g2;g1;g2");
        assertThat(stores.get(1).route(TOPIC)).as("the topic exists where its segments are").isPresent();
        assertThat(proxy.reachesLeader()).isTrue();
        assertThat(proxy.status()).isInstanceOfSatisfying(GroupedProxyStatus.class, status -> {
            assertThat(status.groups()).extracting(GroupedProxyStatus.Group::name).containsExactly("g1", "g2");
            assertThat(status.groups()).allSatisfy(g -> assertThat(g.status().leaderContract()).isNotNull());
            assertThat(status.placements()).containsEntry(TOPIC, "g1;g2;g1;g2");
        });

        final List<SendResult> results = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            results.add(get(messaging.send(Message.builder(TOPIC).body(("m" + i).getBytes(StandardCharsets.UTF_8))
                    .build())));
        }
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stored(stores.get(0), TOPIC, 4)).isEqualTo(20);
        assertThat(stored(stores.get(1), TOPIC, 4)).isEqualTo(20);
        assertThat(stores.get(0).maxOffset(TOPIC, 1) + stores.get(0).maxOffset(TOPIC, 3))
                .as("queues 1 and 3 are g2's").isZero();
        final Map<Integer, Long> perQueue = new HashMap<>();
        for (SendResult r : results) {
            assertThat(r.queueOffset()).isEqualTo(perQueue.getOrDefault(r.queueId(), 0L));
            perQueue.merge(r.queueId(), 1L, Long::sum);
        }
        assertThat(perQueue).containsOnlyKeys(0, 1, 2, 3);
        // Queue ranges are mirrored (at most about 500 ms old), from both groups.
        await().atMost(SETTLE).until(() -> messaging.maxOffset(TOPIC, 0) == 10 && messaging.maxOffset(TOPIC, 1) == 10
                && messaging.maxOffset(TOPIC, 2) == 10 && messaging.maxOffset(TOPIC, 3) == 10);
        final String id = results.get(1).uniqueId();
        assertThat(get(messaging.queryById(TOPIC, id)).map(GroupedMessagingTest::body)).contains("m1");
        assertThat(get(messaging.queryByTime(TOPIC, 0, Long.MAX_VALUE, 100))).hasSize(40);
    }

    @Test
    void shouldReadEachLogicalQueueInOrderWithAnOffsetConsumer() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 4)));
        final Map<Integer, List<String>> sent = new HashMap<>();
        for (int i = 0; i < 24; i++) {
            final int q = i % 4;
            final String body = "q" + q + "-" + i;
            get(messaging.send(message(TOPIC, q, body)));
            sent.computeIfAbsent(q, k -> new ArrayList<>()).add(body);
        }
        stores.forEach(TestStores::awaitIndexed);
        for (int q = 0; q < 4; q++) {
            assertThat(readQueue(TOPIC, q, 6)).as("queue %d", q).containsExactlyElementsOf(sent.get(q));
        }
        messaging.commitOffset("reader", TOPIC, 3, 4);
        assertThat(messaging.queryOffset("reader", TOPIC, 3)).isEqualTo(4);
        await().atMost(SETTLE).until(() -> stores.get(0).queryOffset("reader", TOPIC, 3) == 4);
    }

    /** Pulls one logical queue from 0 to its end, two at a time, checking offsets are one gapless sequence. */
    private List<String> readQueue(final String topic, final int queue, final long end) throws Exception {
        await().atMost(SETTLE).until(() -> messaging.maxOffset(topic, queue) == end);
        final List<String> bodies = new ArrayList<>();
        long offset = 0;
        while (offset < end) {
            final PullResult r = get(messaging.pull(new PullRequest("reader", topic, queue, offset, 2,
                    MessageFilter.ALL, 0)));
            for (StoredMessage m : r.messages()) {
                assertThat(m.queueId()).isEqualTo(queue);
                assertThat(m.queueOffset()).as("logical offsets without a gap").isEqualTo(bodies.size());
                bodies.add(body(m));
            }
            assertThat(r.nextOffset()).as("a read moves on").isGreaterThan(offset);
            offset = r.nextOffset();
        }
        return bodies;
    }

    @Test
    void shouldReadAcrossASealedSegmentIntoTheNextGroup() throws Exception {
        // Queue 0 of "seam": logical 0..2 sealed in g1's queue 0, then open in g2's queue 1 from its offset 0.
        get(stores.get(0).topics().createOrUpdate(TopicConfig.of("seam", 1)));
        get(stores.get(1).topics().createOrUpdate(TopicConfig.of("seam", 2)));
        for (String body : List.of("a", "b", "c", "late")) {
            get(stores.get(0).send(message("seam", 0, body)));
        }
        get(messaging.kvConfigs().put(PlacementBook.NAMESPACE, "seam", "g1:0:0:0:3,g2:1:3:0:-"));
        await().atMost(SETTLE).until(() -> messaging.route("seam").isPresent());
        get(messaging.send(message("seam", 0, "d")));
        get(messaging.send(message("seam", 0, "e")));
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stores.get(1).maxOffset("seam", 1)).as("writes go to the open segment").isEqualTo(2);
        await().atMost(SETTLE).until(() -> messaging.maxOffset("seam", 0) == 5);

        final List<StoredMessage> read = new ArrayList<>();
        long offset = 0;
        while (offset < 5) {
            final PullResult r = get(messaging.pull(new PullRequest("reader", "seam", 0, offset, 10,
                    MessageFilter.ALL, 0)));
            read.addAll(r.messages());
            offset = r.nextOffset();
        }
        assertThat(read).extracting(GroupedMessagingTest::body).as("the message stored past the seal is not part of "
                + "the logical queue").containsExactly("a", "b", "c", "d", "e");
        assertThat(read).extracting(StoredMessage::queueOffset).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(read).extracting(StoredMessage::queueId).containsOnly(0);
        assertThat(read.get(3).record().getLong(read.get(3).record().position() + 20))
                .as("the record handed to clients carries the logical offset").isEqualTo(3);
        assertThat(get(messaging.searchOffset("seam", 0, Long.MAX_VALUE))).isEqualTo(5);
    }

    @Test
    void shouldPopEveryMessageOnceAcrossGroupsAndAckWhereItWasIssued() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 4)));
        final Set<String> sent = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            sent.add("p" + i);
            get(messaging.send(message(TOPIC, i % 4, "p" + i)));
        }
        stores.forEach(TestStores::awaitIndexed);
        final List<String> received = new ArrayList<>();
        final Set<String> issuers = new HashSet<>();
        final List<PoppedMessage> all = new ArrayList<>();
        await().atMost(SETTLE).until(() -> {
            final PopResult r = get(messaging.pop(new PopRequest("popper", TOPIC, MessageFilter.ALL, 7, 60_000,
                    0)));
            for (PoppedMessage m : r.messages()) {
                received.add(body(m.message()));
                issuers.add(m.receiptHandle().substring(0, m.receiptHandle().indexOf('.')));
                all.add(m);
            }
            return received.size() >= sent.size();
        });
        assertThat(received).hasSize(40).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(issuers).containsExactlyInAnyOrder("g1", "g2");
        assertThat(get(messaging.pop(new PopRequest("popper", TOPIC, MessageFilter.ALL, 32, 60_000, 0)))
                .messages()).as("nothing twice").isEmpty();

        // A receipt of g2 sent to g1 is refused there: receipts must go back where they were issued.
        final PoppedMessage ofG2 = all.stream().filter(m -> m.receiptHandle().startsWith("g2.")).findFirst()
                .orElseThrow();
        assertThatThrownBy(() -> get(stores.get(0).ack("popper",
                ofG2.receiptHandle().substring("g2.".length()))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        get(messaging.ack("popper", ofG2.receiptHandle()));
        final List<String> texts = all.stream().filter(m -> m != ofG2).limit(10).map(PoppedMessage::receiptHandle)
                .toList();
        get(messaging.ack("popper", texts));
        get(messaging.ackReceipts("popper", all.stream().filter(m -> m != ofG2 && !texts.contains(
                m.receiptHandle())).map(PoppedMessage::receipt).toList()));
        assertThatThrownBy(() -> get(messaging.ack("popper", ofG2.receiptHandle())))
                .as("acked once, in its own group").satisfies(e -> assertThat(StoreException.errorOf(e))
                        .isEqualTo(StoreError.ILLEGAL_ARGUMENT));
    }

    @Test
    void shouldKeepAReceiptsGroupThroughVisibilityChangesAndEndTransactionsWhereTheHalfMessageIs() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        get(messaging.send(message(TOPIC, 0, "on-g1")));
        get(messaging.send(message(TOPIC, 1, "on-g2")));
        stores.forEach(TestStores::awaitIndexed);
        final List<PoppedMessage> popped = new ArrayList<>();
        await().atMost(SETTLE).until(() -> {
            popped.addAll(get(messaging.pop(new PopRequest("changer", TOPIC, MessageFilter.ALL, 2, 60_000, 0)))
                    .messages());
            return popped.size() >= 2;
        });
        for (PoppedMessage m : popped) {
            final String group = body(m.message()).equals("on-g1") ? "g1." : "g2.";
            assertThat(m.receiptHandle()).startsWith(group);
            final String changed = get(messaging.changeInvisibleTime("changer", m.receiptHandle(), 60_000));
            assertThat(changed).as("the new receipt names the same group").startsWith(group);
            get(messaging.ack("changer", changed));
        }

        // A half message sent to queue 1 lives in g2; its end is refused by g1 (nothing there) and taken by g2.
        final SendResult half = get(messaging.send(Message.builder(TOPIC).queueId(1)
                .body("half".getBytes(StandardCharsets.UTF_8))
                .property(MessageProperties.TRANSACTION_PREPARED, "true")
                .property(MessageProperties.PRODUCER_GROUP, "tx-producer").build()));
        get(messaging.endTransaction(TransactionEnd.byOffset("tx-producer", half.commitLogOffset(), half.uniqueId(),
                TransactionResolution.COMMIT)));
        await().atMost(SETTLE).until(() -> stores.get(1).maxOffset(TOPIC, 1) == 2);
        assertThat(get(messaging.queryById(TOPIC, half.uniqueId())).map(GroupedMessagingTest::body))
                .contains("half");
    }

    @Test
    void shouldWaitOnEveryGroupAndWakeOnASendToEither() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        final CompletableFuture<PopResult> waiting = messaging.pop(new PopRequest("waiter", TOPIC,
                MessageFilter.ALL, 4, 60_000, 15_000));
        await().atMost(SETTLE).until(() -> {
            get(messaging.send(message(TOPIC, 1, "late")));
            return waiting.isDone();
        });
        final PopResult r = get(waiting);
        assertThat(r.messages()).isNotEmpty().allSatisfy(m -> {
            assertThat(body(m.message())).isEqualTo("late");
            assertThat(m.receiptHandle()).startsWith("g2.");
        });
    }

    @Test
    void shouldKeepConsumerGroupConfigurationsInEveryGroup() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        final GroupConfig fifo = new GroupConfig("fifo-group", 5, true, false, Map.of());
        get(messaging.groups().createOrUpdate(fifo));
        assertThat(stores.get(0).groups().get("fifo-group")).contains(fifo);
        assertThat(stores.get(1).groups().get("fifo-group")).contains(fifo);
        // A group created on the metadata group alone reaches the other group before that group serves it.
        final GroupConfig elsewhere = new GroupConfig("made-elsewhere", 3, true, false, Map.of());
        get(stores.get(0).groups().createOrUpdate(elsewhere));
        await().atMost(SETTLE).until(() -> messaging.groups().get("made-elsewhere").isPresent());
        get(messaging.pop(new PopRequest("made-elsewhere", TOPIC, MessageFilter.ALL, 1, 60_000, 0)));
        assertThat(stores.get(1).groups().get("made-elsewhere")).contains(elsewhere);
    }

    @Test
    void shouldFindTheSamePlacementAfterARestartAndNeverMoveQueuesWhenAGroupIsAdded() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 4)));
        get(messaging.topics().createIfAbsent(TopicConfig.of("before-groups", 1)));
        for (int i = 0; i < 8; i++) {
            get(messaging.send(message(TOPIC, i % 4, "r" + i)));
        }
        proxy.close();
        groups.addStore();
        proxy = startProxy(3);
        messaging = proxy.messaging();
        assertThat(((GroupedMessaging) messaging).placement(TOPIC).format()).isEqualTo("g1;g2;g1;g2");
        stores.forEach(TestStores::awaitIndexed);
        assertThat(readQueue(TOPIC, 1, 2)).containsExactly("r1", "r5");

        get(messaging.topics().createOrUpdate(TopicConfig.of(TOPIC, 6)));
        assertThat(((GroupedMessaging) messaging).placement(TOPIC).format())
                .as("new queues are placed over three groups, old ones stay").isEqualTo("g1;g2;g1;g2;g2;g3");
        assertThat(stores.get(2).route(TOPIC).orElseThrow().queueCount()).isEqualTo(6);
        get(messaging.topics().createOrUpdate(TopicConfig.of("before-groups", 3)));
        assertThat(((GroupedMessaging) messaging).placement("before-groups").format()).isEqualTo("g1;g2;g3");
        assertThat(get(messaging.topics().createIfAbsent(TopicConfig.of("spread", 3))).queueCount()).isEqualTo(3);
        assertThat(((GroupedMessaging) messaging).placement("spread").format()).isEqualTo("g1;g2;g3");
    }
}
