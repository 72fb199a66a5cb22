package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.SendResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction coordinator's state outlives it: each test runs one coordinator, drops it as a crash would (nothing
 * more is written), and starts another over the same store, which recovers from the transaction log.
 */
class TransactionRecoveryTest {
    private static final String TOPIC = "orders";
    private static final String ID = "tx-1";
    private static final int TIMEOUT = 60_000;

    @TempDir
    Path dir;

    private MessageStore store;
    private final List<TransactionCoordinator> coordinators = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).maxMessageSize(1 << 20)
                .flushInterval(Duration.ofMillis(50)).diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 2)).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        coordinators.forEach(TransactionCoordinator::close);
        store.close();
    }

    /**
     * A coordinator started as the front-end starts it: recovered before it answers anything. A broker's store has
     * indexed everything before its front-ends start; this live store indexes a moment after a send completes, so
     * the start waits until the transaction log's queue shows what was written (a record without an id, which replay
     * skips, is indexed after all of it).
     */
    private TransactionCoordinator start() throws Exception {
        if (store.route(TransactionLog.STATES).isPresent()) {
            final SendResult last = store.send(Message.builder(TransactionLog.STATES).queueId(0).body(new byte[1])
                    .build()).get(10, TimeUnit.SECONDS);
            ProduceApi.visible(store, TransactionLog.STATES, 0, List.of(last)).get(10, TimeUnit.SECONDS);
        }
        final TransactionCoordinator c = new TransactionCoordinator(store,
                new ProducerStates(System::currentTimeMillis), 64 << 20, System::currentTimeMillis);
        coordinators.add(c);
        c.recover().get(30, TimeUnit.SECONDS);
        return c;
    }

    @Test
    void shouldKeepProducerIdsAndEpochsSoARestartedBrokerStillFencesZombies() throws Exception {
        final TransactionCoordinator first = start();
        final TransactionCoordinator.Identity zombie = first.init(ID, TIMEOUT, -1, (short) -1).get();
        final TransactionCoordinator.Identity current = first.init(ID, TIMEOUT, -1, (short) -1).get();
        assertThat(current.producerId()).isEqualTo(zombie.producerId());
        assertThat(current.epoch()).isEqualTo((short) (zombie.epoch() + 1));

        final TransactionCoordinator restarted = start();
        assertThat(restarted.addPartitions(ID, zombie.producerId(), zombie.epoch(), List.of()).get())
                .isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(restarted.addPartitions(ID, current.producerId(), current.epoch(), List.of()).get()).isEqualTo(Errors.NONE);
        final TransactionCoordinator.Identity next = restarted.init(ID, TIMEOUT, -1, (short) -1).get();
        assertThat(next.producerId()).isEqualTo(current.producerId());
        assertThat(next.epoch()).isEqualTo((short) (current.epoch() + 1));
    }

    @Test
    void shouldAbortATransactionOpenAtTheCrashAndFenceItsProducer() throws Exception {
        final TransactionCoordinator first = start();
        final TransactionCoordinator.Identity p = first.init(ID, TIMEOUT, -1, (short) -1).get();
        assertThat(first.addPartitions(ID, p.producerId(), p.epoch(), List.of()).get()).isEqualTo(Errors.NONE);
        assertThat(first.hold(p.producerId(), p.epoch(), new TransactionCoordinator.Partition(TOPIC, 0),
                held(p, 0, 0, "a", "b"))).isEqualTo(Errors.NONE);

        final TransactionCoordinator restarted = start();
        assertThat(restarted.hold(p.producerId(), p.epoch(), new TransactionCoordinator.Partition(TOPIC, 0),
                held(p, 0, 2, "c"))).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(restarted.end(ID, p.producerId(), p.epoch(), true).get()).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(bodies(0)).isEmpty();
        final TransactionCoordinator.Identity again = restarted.init(ID, TIMEOUT, -1, (short) -1).get();
        assertThat(again.error()).isEqualTo(Errors.NONE);
        assertThat(again.epoch()).isEqualTo((short) (p.epoch() + 2));
    }

    @Test
    void shouldNotApplyACommittedTransactionAgainAfterARestart() throws Exception {
        final TransactionCoordinator first = start();
        final TransactionCoordinator.Identity p = first.init(ID, TIMEOUT, -1, (short) -1).get();
        first.addPartitions(ID, p.producerId(), p.epoch(), List.of()).get();
        first.hold(p.producerId(), p.epoch(), new TransactionCoordinator.Partition(TOPIC, 0), held(p, 0, 0, "a", "b"));
        first.hold(p.producerId(), p.epoch(), new TransactionCoordinator.Partition(TOPIC, 1), held(p, 1, 0, "c"));
        first.holdOffsets(ID, p.producerId(), p.epoch(), "readers",
                Map.of(new TransactionCoordinator.Partition("in", 0), 17L)).get();
        assertThat(first.end(ID, p.producerId(), p.epoch(), true).get()).isEqualTo(Errors.NONE);
        assertThat(bodies(0)).containsExactly("a", "b");
        assertThat(bodies(1)).containsExactly("c");
        assertThat(store.queryOffset("readers", "in", 0)).isEqualTo(17L);

        final TransactionCoordinator restarted = start();
        assertThat(bodies(0)).containsExactly("a", "b");
        assertThat(bodies(1)).containsExactly("c");
        // The producer goes on with its epoch: nothing was open at the restart.
        assertThat(restarted.addPartitions(ID, p.producerId(), p.epoch(), List.of()).get()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldCompleteACommitDecidedBeforeTheCrashWithoutAppendingAnyBatchTwice() throws Exception {
        final TransactionCoordinator first = start();
        final TransactionCoordinator.Identity p = first.init(ID, TIMEOUT, -1, (short) -1).get();
        first.addPartitions(ID, p.producerId(), p.epoch(), List.of()).get();
        // What EndTxn(commit) stores before it appends anything, for a transaction with three batches on partition 0
        // and one on partition 1; then the crash comes after the first batch of partition 0 was appended.
        final TransactionLog log = new TransactionLog(store);
        final TransactionCoordinator.Partition p0 = new TransactionCoordinator.Partition(TOPIC, 0);
        final TransactionCoordinator.Partition p1 = new TransactionCoordinator.Partition(TOPIC, 1);
        final List<TransactionCoordinator.HeldBatch> batches0 = List.of(held(p, 0, 0, "a", "b"), held(p, 0, 2, "c"),
                held(p, 0, 3, "d"));
        final TransactionCoordinator.HeldBatch batch1 = held(p, 1, 0, "e");
        final List<Long> data0 = new ArrayList<>();
        for (TransactionCoordinator.HeldBatch b : batches0) {
            data0.add(log.writeBatch(ID, b.bytes()).get());
        }
        final long data1 = log.writeBatch(ID, batch1.bytes()).get();
        final Map<String, Map<TransactionCoordinator.Partition, Long>> offsets = new LinkedHashMap<>();
        offsets.put("readers", Map.of(new TransactionCoordinator.Partition("in", 1), 5L));
        final long sequence = 0;
        final TransactionRecord prepared = new TransactionRecord(p.producerId(), p.epoch(), TIMEOUT,
                TransactionRecord.State.PREPARE_COMMIT, sequence, List.of(
                new TransactionRecord.PartitionBatches(p0, store.maxOffset(TOPIC, 0), data0),
                new TransactionRecord.PartitionBatches(p1, store.maxOffset(TOPIC, 1), List.of(data1))), offsets);
        log.write(ID, prepared).get();
        final List<Message> firstBatch = new ArrayList<>(batches0.get(0).messages());
        final Message m = firstBatch.get(0);
        final Map<String, String> marked = new LinkedHashMap<>(m.properties());
        marked.put(CommitApplier.MARKER, TransactionRecord.marker(p.producerId(), p.epoch(), sequence, 0));
        firstBatch.set(0, new Message(m.topic(), m.queueId(), m.body(), m.flag(), marked, m.sysFlag(),
                m.bornTimestamp(), m.bornHost(), m.reconsumeTimes()));
        final List<SendResult> appended = store.sendBatch(firstBatch).get();
        ProduceApi.visible(store, TOPIC, 0, appended).get();
        assertThat(bodies(0)).containsExactly("a", "b");

        final TransactionCoordinator restarted = start();
        assertThat(bodies(0)).containsExactly("a", "b", "c", "d");
        assertThat(bodies(1)).containsExactly("e");
        assertThat(store.queryOffset("readers", "in", 1)).isEqualTo(5L);
        // Done: the producer's next transaction starts normally, and another restart applies nothing again.
        assertThat(restarted.addPartitions(ID, p.producerId(), p.epoch(), List.of()).get()).isEqualTo(Errors.NONE);
        start();
        assertThat(bodies(0)).containsExactly("a", "b", "c", "d");
    }

    @Test
    void shouldReplayTheLogFromItsLastCompaction() throws Exception {
        final TransactionLog log = new TransactionLog(store);
        log.load().get(10, TimeUnit.SECONDS);
        for (short epoch = 0; epoch < 10; epoch++) {
            log.write("a", TransactionRecord.of(1, epoch, TIMEOUT, TransactionRecord.State.EMPTY, epoch)).get();
        }
        log.write("b", TransactionRecord.of(2, (short) 0, TIMEOUT, TransactionRecord.State.ONGOING, 0)).get();
        awaitLength(log, 11);
        log.compact(Map.of("a", TransactionRecord.of(1, (short) 9, TIMEOUT, TransactionRecord.State.EMPTY, 9),
                "b", TransactionRecord.of(2, (short) 0, TIMEOUT, TransactionRecord.State.ONGOING, 0))).get();
        awaitLength(log, 2);
        final Map<String, TransactionRecord> states = new TransactionLog(store).load().get(10, TimeUnit.SECONDS);
        assertThat(states).containsOnlyKeys("a", "b");
        assertThat(states.get("a").epoch()).isEqualTo((short) 9);
        assertThat(states.get("b").state()).isEqualTo(TransactionRecord.State.ONGOING);
    }

    /** Waits (with a deadline) until the log's queue shows {@code length} records since its start. */
    private static void awaitLength(final TransactionLog log, final long length) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (log.length() != length && System.nanoTime() < deadline) {
            Thread.sleep(5); // polling the store's indexing, with the deadline above
        }
        assertThat(log.length()).isEqualTo(length);
    }

    /** A transactional batch as Produce holds it. */
    private static TransactionCoordinator.HeldBatch held(final TransactionCoordinator.Identity p, final int partition,
                                                         final int sequence, final String... values) {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        final ByteBuffer buffer = MemoryRecords.withTransactionalRecords(Compression.NONE, p.producerId(), p.epoch(),
                sequence, records).buffer();
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new TransactionCoordinator.HeldBatch(ProduceApi.decodeBatch(TOPIC, partition, bytes,
                System.currentTimeMillis()), bytes);
    }

    private List<String> bodies(final int queue) throws Exception {
        final List<StoredMessage> messages = store.pull(new PullRequest("check", TOPIC, queue, 0, 100, null, 0))
                .get(10, TimeUnit.SECONDS).messages();
        return messages.stream().map(x -> new String(x.bodyBytes(), StandardCharsets.UTF_8)).toList();
    }
}
