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
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
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
    private static final Duration SETTLE = SingleReplicaGroups.SETTLE;
    private static final String TOPIC = "scaled";

    @TempDir
    Path dir;

    private SingleReplicaGroups groups;
    private List<MessageStore> stores;
    private final List<GroupedProxy> proxies = new ArrayList<>();

    @BeforeEach
    void start() {
        groups = new SingleReplicaGroups(dir, 2);
        stores = groups.stores();
        proxies.add(startProxy());
        proxies.add(startProxy());
    }

    private GroupedProxy startProxy() {
        return groups.proxy(groups.first(2));
    }

    @AfterEach
    void stop() {
        groups.close();
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
    void shouldEndALongPollingPopWhenAnotherProxyScalesTheTopicAway() throws Exception {
        get(stores.get(0).topics().createOrUpdate(TopicConfig.of(TOPIC, 1)));
        final GroupedMessaging scaling = (GroupedMessaging) proxies.get(0).messaging();
        final GroupedMessaging consuming = (GroupedMessaging) proxies.get(1).messaging();
        await().atMost(SETTLE).until(() -> consuming.route(TOPIC).isPresent());
        get(scaling.send(message(0, "a")));
        final List<String> first = new ArrayList<>();
        await().atMost(SETTLE).until(() -> {
            get(consuming.pop(new PopRequest("waiter", TOPIC, MessageFilter.ALL, 32, 60_000, 0))).messages()
                    .forEach(m -> first.add(body(m.message())));
            return !first.isEmpty();
        });
        assertThat(first).containsExactly("a");

        // Caught up: the next POP parks on g1, where the topic lives, for up to a minute.
        final CompletableFuture<PopResult> parked = consuming.pop(new PopRequest("waiter", TOPIC, MessageFilter.ALL,
                32, 60_000, 60_000));
        assertThat(get(scaling.scale(TOPIC, 1, List.of("g2"))).format()).isEqualTo("g1:0:0:0:1,g2:0:1:0:-");
        get(scaling.send(message(0, "b")));
        // g1 takes no writes any more: the parked POP ends once B's mirror shows the move, long before its minute,
        // and the next one, following the new placement, gets what g2 stored.
        final List<String> got = new ArrayList<>();
        get(parked).messages().forEach(m -> got.add(body(m.message())));
        await().atMost(SETTLE).until(() -> {
            get(consuming.pop(new PopRequest("waiter", TOPIC, MessageFilter.ALL, 32, 60_000, 1000))).messages()
                    .forEach(m -> got.add(body(m.message())));
            return got.contains("b");
        });
        assertThat(got).containsExactly("b");
    }

    @Test
    void shouldCarryADelayedMessageAndAHalfMessageThatFallDueAfterTheSealIntoTheLogicalQueueOnce() throws Exception {
        final GroupedMessaging messaging = (GroupedMessaging) proxies.get(0).messaging();
        final GroupedMessaging other = (GroupedMessaging) proxies.get(1).messaging();
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        get(messaging.send(message(0, "before")));
        get(messaging.send(Message.builder(TOPIC).queueId(0).body("later".getBytes(StandardCharsets.UTF_8))
                .property(MessageProperties.DELAY_MS, "3000").build()));
        final SendResult half = get(messaging.send(Message.builder(TOPIC).queueId(0)
                .body("committed".getBytes(StandardCharsets.UTF_8))
                .property(MessageProperties.TRANSACTION_PREPARED, "true")
                .property(MessageProperties.PRODUCER_GROUP, "pg").build()));

        final TopicPlacement after = get(messaging.scale(TOPIC, 2, List.of("g2")));
        assertThat(after.queue(0).get(0).sealedEnd()).as("only 'before' lies in g1's segment").isEqualTo(1);
        get(messaging.send(message(0, "after")));
        get(messaging.endTransaction(TransactionEnd.byOffset("pg", half.commitLogOffset(), half.uniqueId(),
                TransactionResolution.COMMIT)));

        // Both were stored in g1 before the seal; each reaches the logical queue's live segment on g2, carried by
        // whichever proxy popped it from g1's forward topic.
        await().atMost(SETTLE).until(() -> other.maxOffset(TOPIC, 0) >= 4);
        await().atMost(SETTLE).until(() -> stores.get(0).inFlight() == 0);
        assertThat(other.maxOffset(TOPIC, 0)).as("each carried once").isEqualTo(4);
        final List<StoredMessage> read = new ArrayList<>();
        long offset = 0;
        while (offset < 4) {
            final PullResult r = get(other.pull(new PullRequest("reader", TOPIC, 0, offset, 64, MessageFilter.ALL,
                    0)));
            read.addAll(r.messages());
            offset = r.nextOffset();
        }
        assertThat(read).extracting(QueueScalingTest::body).hasSize(4).startsWith("before")
                .containsExactlyInAnyOrder("before", "after", "later", "committed");
        assertThat(read).allSatisfy(m -> assertThat(m.properties()).doesNotContainKeys(MessageProperties.REAL_TOPIC,
                MessageProperties.REAL_QUEUE_ID));
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stores.get(0).maxOffset(TOPIC, 0)).as("g1 stored nothing past the seal").isEqualTo(1);

        final Set<String> popped = new HashSet<>();
        final AtomicInteger duplicates = new AtomicInteger();
        await().atMost(SETTLE).until(() -> {
            for (PoppedMessage m : get(other.pop(new PopRequest("popper", TOPIC, MessageFilter.ALL, 32, 60_000, 0)))
                    .messages()) {
                if (!popped.add(body(m.message()))) {
                    duplicates.incrementAndGet();
                }
            }
            return popped.size() >= 4;
        });
        assertThat(popped).containsExactlyInAnyOrder("before", "after", "later", "committed");
        assertThat(duplicates.get()).isZero();
    }

    @Test
    void shouldScaleInByClosingTheLastQueuesWhoseMessagesStayReadable() throws Exception {
        final GroupedMessaging messaging = (GroupedMessaging) proxies.get(0).messaging();
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 4)));
        final Set<String> sent = new HashSet<>();
        for (int q = 0; q < 4; q++) {
            for (int i = 0; i < 5; i++) {
                get(messaging.send(message(q, "q" + q + "-" + i)));
                sent.add("q" + q + "-" + i);
            }
        }

        final TopicPlacement after = get(messaging.scale(TOPIC, 2, List.of("g1", "g2")));
        assertThat(after.format()).as("queues 2 and 3 closed at their ends, nothing copied")
                .isEqualTo("g1;g2;g1:2:0:0:5;g2:3:0:0:5");
        assertThat(after.writeQueueCount()).isEqualTo(2);
        final TopicConfig route = messaging.route(TOPIC).orElseThrow();
        assertThat(route.queueCount()).as("readers still see every queue").isEqualTo(4);
        assertThat(route.writeQueueCount()).as("producers write to the open ones").isEqualTo(2);

        // A producer whose route still lists queue 3 writes to an open queue; the core's choice never lands closed.
        final SendResult redirected = get(messaging.send(message(3, "aimed at 3")));
        assertThat(redirected.queueId()).isEqualTo(1);
        sent.add("aimed at 3");
        for (int i = 0; i < 10; i++) {
            final SendResult r = get(messaging.send(Message.builder(TOPIC).body(("any" + i).getBytes(
                    StandardCharsets.UTF_8)).build()));
            assertThat(r.queueId()).isLessThan(2);
            sent.add("any" + i);
        }
        stores.forEach(TestStores::awaitIndexed);
        assertThat(stores.get(0).maxOffset(TOPIC, 2)).isEqualTo(5);
        assertThat(stores.get(1).maxOffset(TOPIC, 3)).isEqualTo(5);
        assertThatThrownBy(() -> get(stores.get(1).send(message(3, "behind the fence"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.QUEUE_SEALED));

        // An offset consumer reads a closed queue to its end, and then learns nothing more will come.
        final PullResult closed = get(messaging.pull(new PullRequest("reader", TOPIC, 3, 0, 64, MessageFilter.ALL,
                0)));
        assertThat(closed.messages()).extracting(QueueScalingTest::body)
                .containsExactly("q3-0", "q3-1", "q3-2", "q3-3", "q3-4");
        assertThat(messaging.maxOffset(TOPIC, 3)).isEqualTo(5);
        assertThat(get(messaging.pull(new PullRequest("reader", TOPIC, 3, 5, 64, MessageFilter.ALL, 0)))
                .messages()).isEmpty();

        // A consumer group drains the closed queues with the open ones: every message once.
        final Set<String> popped = new HashSet<>();
        final AtomicInteger duplicates = new AtomicInteger();
        await().atMost(SETTLE).until(() -> {
            final PopResult r = get(messaging.pop(new PopRequest("drainer", TOPIC, MessageFilter.ALL, 32, 60_000,
                    0)));
            for (PoppedMessage m : r.messages()) {
                if (!popped.add(body(m.message()))) {
                    duplicates.incrementAndGet();
                }
                get(messaging.ack("drainer", m.receiptHandle()));
            }
            return popped.size() >= sent.size();
        });
        assertThat(popped).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(duplicates.get()).isZero();

        // Scaling out again reopens a closed queue with a new segment after its sealed end.
        final TopicPlacement reopened = get(messaging.scale(TOPIC, 3, List.of("g1", "g2")));
        assertThat(reopened.queue(2)).last().isEqualTo(new QueueSegment("g2", 4, 5, 0, QueueSegment.OPEN));
        assertThat(reopened.writeQueueCount()).isEqualTo(3);
        assertThat(get(messaging.send(message(2, "reopened"))).queueOffset()).isEqualTo(5);
    }

    @Test
    void shouldRefuseScalingToNoQueueOrOntoUnknownGroups() throws Exception {
        final GroupedMessaging messaging = (GroupedMessaging) proxies.get(0).messaging();
        get(messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        assertThatThrownBy(() -> get(messaging.scale(TOPIC, 0, List.of("g2"))))
                .as("a topic keeps at least one open queue")
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
