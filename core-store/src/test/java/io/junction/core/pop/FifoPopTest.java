package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FifoPopTest {
    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open(final StoreConfig config) {
        return MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
    }

    private static void setUp(final MessageStore store, final int maxReconsume) {
        store.topics().createOrUpdate(new TopicConfig("orders", 4, TopicType.FIFO, TopicConfig.PERM_READ_WRITE,
                Map.of())).join();
        store.groups().createOrUpdate(new GroupConfig("g", maxReconsume, true, false, Map.of())).join();
    }

    private static void send(final MessageStore store, final String group, final int seq) {
        store.send(Message.builder("orders").property(MessageProperties.MESSAGE_GROUP, group)
                .keys(group + ":" + seq).body((group + ":" + seq).getBytes(StandardCharsets.UTF_8)).build()).join();
    }

    private static String groupOf(final PoppedMessage m) {
        return m.message().property(MessageProperties.MESSAGE_GROUP);
    }

    private static int seqOf(final PoppedMessage m) {
        return Integer.parseInt(m.message().keys().substring(m.message().keys().indexOf(':') + 1));
    }

    @Test
    void shouldReleaseEachGroupsNextMessageWhenABatchAckCoversItsPredecessor() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            setUp(store, 16);
            for (int s = 0; s < 2; s++) {
                for (String g : List.of("A", "B", "C")) {
                    send(store, g, s);
                }
            }
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> first = popAvailable(store);
            assertThat(first).extracting(m -> groupOf(m) + seqOf(m)).containsExactlyInAnyOrder("A0", "B0", "C0");
            // Each group is held until its message is acked.
            assertThat(popAvailable(store)).isEmpty();
            store.ack("g", first.stream().map(PoppedMessage::receiptHandle).toList()).join();
            assertThat(popAvailable(store)).extracting(m -> groupOf(m) + seqOf(m))
                    .containsExactlyInAnyOrder("A1", "B1", "C1");
        }
        try (MessageStore store = open(config)) {
            now.addAndGet(120_000);
            store.reviveNow();
            TestStores.awaitIndexed(store);
            // After a restart the batch-acked messages stay done; only the unacked second ones come back.
            assertThat(popAvailable(store)).extracting(m -> groupOf(m) + seqOf(m))
                    .containsExactlyInAnyOrder("A1", "B1", "C1");
        }
    }

    private static List<PoppedMessage> popAvailable(final MessageStore store) {
        final List<PoppedMessage> all = new ArrayList<>();
        for (int empty = 0; empty < 2; ) {
            final List<PoppedMessage> r = store.pop(new PopRequest("g", "orders", null, 8, 60_000, 0)).join()
                    .messages();
            all.addAll(r);
            empty = r.isEmpty() ? empty + 1 : 0;
        }
        return all;
    }

    @Test
    void shouldKeepEachMessageGroupInOrderUnderConcurrentConsumersAndRandomNacks() throws Exception {
        final int groups = 40;
        final int perGroup = 30;
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 1000);
            for (int s = 0; s < perGroup; s++) {
                for (int g = 0; g < groups; g++) {
                    send(store, "G" + g, s);
                }
            }
            TestStores.awaitIndexed(store);
            final Map<String, List<Integer>> acked = new ConcurrentHashMap<>();
            final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
            final List<String> violations = new CopyOnWriteArrayList<>();
            final AtomicInteger done = new AtomicInteger();
            final AtomicInteger nacks = new AtomicInteger();
            final ExecutorService consumers = Executors.newFixedThreadPool(8);
            final List<Future<?>> futures = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int c = 0; c < 8; c++) {
                futures.add(consumers.submit(() -> {
                    while (done.get() < groups * perGroup && System.nanoTime() < deadline) {
                        final List<PoppedMessage> batch =
                                store.pop(new PopRequest("g", "orders", null, 4, 60_000, 100)).join().messages();
                        for (PoppedMessage m : batch) {
                            final String group = groupOf(m);
                            if (holders.computeIfAbsent(group, k -> new AtomicInteger()).incrementAndGet() > 1) {
                                violations.add("two holders of " + group);
                            }
                            if (ThreadLocalRandom.current().nextInt(100) < 20) {
                                holders.get(group).decrementAndGet();
                                nacks.incrementAndGet();
                                store.changeInvisibleTime("g", m.receiptHandle(), 0).join();
                                continue;
                            }
                            final List<Integer> log = acked.computeIfAbsent(group, k -> new CopyOnWriteArrayList<>());
                            if (seqOf(m) != log.size()) {
                                violations.add(group + " got " + seqOf(m) + " after " + log.size() + " acked");
                            }
                            log.add(seqOf(m));
                            holders.get(group).decrementAndGet();
                            store.ack("g", m.receiptHandle()).join();
                            done.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            consumers.shutdown();
            assertThat(violations).isEmpty();
            assertThat(nacks.get()).isPositive();
            assertThat(done.get()).isEqualTo(groups * perGroup);
            for (int g = 0; g < groups; g++) {
                final List<Integer> expected = new ArrayList<>();
                for (int s = 0; s < perGroup; s++) {
                    expected.add(s);
                }
                assertThat(acked.get("G" + g)).as("order of group G%d", g).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldHoldAGroupBehindItsUnackedMessageAcrossARestartAndDeadLetterItAtTheLimit() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            setUp(store, 1);
            send(store, "A", 0);
            send(store, "A", 1);
            send(store, "B", 0);
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> first = store.pop(new PopRequest("g", "orders", null, 32, 10_000, 0)).join()
                    .messages();
            final List<PoppedMessage> more = store.pop(new PopRequest("g", "orders", null, 32, 10_000, 0)).join()
                    .messages();
            final List<PoppedMessage> all = new ArrayList<>(first);
            all.addAll(more);
            assertThat(all).extracting(m -> groupOf(m) + seqOf(m)).containsExactlyInAnyOrder("A0", "B0");
        }
        try (MessageStore store = open(config)) {
            assertThat(store.pop(new PopRequest("g", "orders", null, 32, 10_000, 0)).join().messages()).isEmpty();
            now.addAndGet(10_001);
            assertThat(store.reviveNow()).isEqualTo(2);
            final List<PoppedMessage> again = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                again.addAll(store.pop(new PopRequest("g", "orders", null, 32, 10_000, 0)).join().messages());
            }
            assertThat(again).extracting(m -> groupOf(m) + seqOf(m) + "x" + m.reconsumeTimes())
                    .containsExactlyInAnyOrder("A0x1", "B0x1");
            now.addAndGet(10_001);
            assertThat(store.reviveNow()).isEqualTo(2); // second timeout: past the maximum, dead-lettered
            TestStores.awaitIndexed(store);
            assertThat(TestStores.readAll(store, "%DLQ%g", 0)).hasSize(2);
            final List<PoppedMessage> next = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                next.addAll(store.pop(new PopRequest("g", "orders", null, 32, 10_000, 0)).join().messages());
            }
            assertThat(next).extracting(m -> groupOf(m) + seqOf(m)).containsExactly("A1");
        }
    }

    @Test
    void shouldTakeNothingFromHeldQueuesUntilAPopNoLongerHoldsThem() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 16);
            for (int q = 0; q < 4; q++) {
                store.send(Message.builder("orders").queueId(q).property(MessageProperties.MESSAGE_GROUP, "G" + q)
                        .keys("G" + q + ":0").body(("q" + q).getBytes(StandardCharsets.UTF_8)).build()).join();
            }
            TestStores.awaitIndexed(store);
            final PopRequest holding = new PopRequest("g", "orders", null, 8, 60_000, 0).holding(Set.of(1, 3));
            assertThat(store.pop(holding).join().messages()).extracting(m -> m.message().queueId())
                    .containsExactlyInAnyOrder(0, 2);
            assertThat(store.pop(holding).join().messages()).isEmpty();
            assertThat(store.pop(new PopRequest("g", "orders", null, 8, 60_000, 0)).join().messages())
                    .extracting(m -> m.message().queueId()).containsExactlyInAnyOrder(1, 3);
        }
    }
}
