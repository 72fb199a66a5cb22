package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka transactions on the core, coordinated here.
 *
 * <p>A transactional producer's records are not written to their partitions while its transaction runs: each batch
 * (checked for idempotence as any) is held by the coordinator with the offsets the transaction commits for consumer
 * groups (TxnOffsetCommit). EndTxn with commit appends the held batches to their partitions (each batch one core batch,
 * in the order produced) and then commits the held offsets; EndTxn with abort, a transaction past its timeout or a
 * newer epoch of the same transactional id drop them. So a partition's queue only ever holds committed records:
 * read_committed consumers read up to the high watermark with no aborted transactions to skip, other protocols never
 * see an aborted record, and offsets committed in a transaction only apply on commit.
 *
 * <p>Fencing: InitProducerId with a transactional id hands out the id's producer id with its epoch raised by one,
 * aborting what the previous epoch left; a request of an older epoch is PRODUCER_FENCED. A transaction that outlives
 * its timeout is aborted and its epoch raised, so the late producer is fenced too.
 *
 * <p>Limits (see the README): the held records live in memory until commit, at most {@code kafka.max-transaction-bytes}
 * per transaction (beyond it the transaction must abort: TRANSACTION_ABORTABLE); a broker crash before EndTxn aborts
 * every open transaction (its producers are fenced: their ids are unknown after the restart), and a crash while a
 * commit is being applied can leave part of it applied. Thread-safe.
 */
final class TransactionCoordinator implements AutoCloseable {
    /** Longest transaction timeout accepted (Kafka's transaction.max.timeout.ms default). */
    static final int MAX_TIMEOUT_MS = 15 * 60_000;

    private final Messaging messaging;
    private final ProducerStates producers;
    private final long maxBytes;
    private final LongSupplier clock;
    private final Map<String, Transaction> byId = new HashMap<>();
    private final Map<Long, Transaction> byProducer = new HashMap<>();
    private final ScheduledExecutorService ticker;

    /** A partition a transaction writes to: a core topic and queue. */
    record Partition(String topic, int queue) {
    }

    /** The state of one transactional id. */
    private static final class Transaction {
        final String id;
        long producerId;
        short epoch;
        int timeoutMs;
        boolean ongoing;
        /** EndTxn is applying a commit: nothing else may start until it is done. */
        boolean ending;
        long startedAt;
        long bytes;
        final Map<Partition, List<List<Message>>> batches = new LinkedHashMap<>();
        final Map<String, Map<Partition, Long>> offsets = new LinkedHashMap<>();

        Transaction(final String id) {
            this.id = id;
        }

        void clear() {
            ongoing = false;
            bytes = 0;
            batches.clear();
            offsets.clear();
        }
    }

    /** A producer id and epoch handed out, or the error refusing them. */
    record Identity(Errors error, long producerId, short epoch) {
    }

    TransactionCoordinator(final Messaging messaging, final ProducerStates producers, final long maxBytes,
                           final LongSupplier clock) {
        this.messaging = messaging;
        this.producers = producers;
        this.maxBytes = maxBytes;
        this.clock = clock;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "kafka-transaction-coordinator");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleWithFixedDelay(this::expire, 1, 1, TimeUnit.SECONDS);
    }

    /**
     * InitProducerId with a transactional id: the id's producer with the next epoch (a new producer id once epochs
     * run out), whatever the previous epoch left aborted. {@code producerId}/{@code epoch} are the caller's current
     * ones when it asks for a bump (KIP-360), else -1.
     */
    synchronized Identity init(final String id, final int timeoutMs, final long producerId, final short epoch) {
        if (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
            return new Identity(Errors.INVALID_TRANSACTION_TIMEOUT, -1, (short) -1);
        }
        Transaction t = byId.get(id);
        if (t == null) {
            t = new Transaction(id);
            t.producerId = producers.newProducerId();
            t.epoch = 0;
            byId.put(id, t);
            byProducer.put(t.producerId, t);
        } else {
            if (producerId != -1 && (producerId != t.producerId || epoch != t.epoch)) {
                return new Identity(Errors.PRODUCER_FENCED, -1, (short) -1);
            }
            if (t.ending) {
                return new Identity(Errors.CONCURRENT_TRANSACTIONS, -1, (short) -1);
            }
            t.clear();
            bump(t);
        }
        t.timeoutMs = timeoutMs;
        return new Identity(Errors.NONE, t.producerId, t.epoch);
    }

    private void bump(final Transaction t) {
        if (t.epoch >= Short.MAX_VALUE - 1) {
            byProducer.remove(t.producerId);
            t.producerId = producers.newProducerId();
            t.epoch = 0;
            byProducer.put(t.producerId, t);
        } else {
            t.epoch++;
        }
    }

    /** Why a request of {@code id} with this producer id and epoch is refused, or NONE. */
    private Errors check(final Transaction t, final long producerId, final short epoch) {
        if (t == null || t.producerId != producerId) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (epoch < t.epoch) {
            return Errors.PRODUCER_FENCED;
        }
        if (epoch > t.epoch) {
            return Errors.INVALID_PRODUCER_EPOCH;
        }
        return t.ending ? Errors.CONCURRENT_TRANSACTIONS : Errors.NONE;
    }

    private void begin(final Transaction t) {
        if (!t.ongoing) {
            t.ongoing = true;
            t.startedAt = clock.getAsLong();
        }
    }

    /** AddPartitionsToTxn: the partitions join the transaction (their records are held until it ends). */
    synchronized Errors addPartitions(final String id, final long producerId, final short epoch) {
        final Transaction t = byId.get(id);
        final Errors e = check(t, producerId, epoch);
        if (e == Errors.NONE) {
            begin(t);
        }
        return e;
    }

    /** AddOffsetsToTxn: a consumer group's offsets will be committed with the transaction. */
    synchronized Errors addOffsets(final String id, final long producerId, final short epoch) {
        return addPartitions(id, producerId, epoch);
    }

    /** TxnOffsetCommit: offsets of core group {@code group} held until the transaction commits. */
    synchronized Errors holdOffsets(final String id, final long producerId, final short epoch, final String group,
                                    final Map<Partition, Long> offsets) {
        final Transaction t = byId.get(id);
        final Errors e = check(t, producerId, epoch);
        if (e != Errors.NONE) {
            return e;
        }
        begin(t);
        t.offsets.computeIfAbsent(group, g -> new LinkedHashMap<>()).putAll(offsets);
        return Errors.NONE;
    }

    /** Whether a producer id is a transactional producer's. */
    synchronized boolean isTransactional(final long producerId) {
        return byProducer.containsKey(producerId);
    }

    /** Holds a transactional batch for its partition until the transaction ends. */
    synchronized Errors hold(final long producerId, final short epoch, final Partition partition,
                             final List<Message> batch) {
        final Transaction t = byProducer.get(producerId);
        if (t == null) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (epoch < t.epoch) {
            return Errors.INVALID_PRODUCER_EPOCH; // the client takes it as being fenced
        }
        if (epoch > t.epoch || t.ending) {
            return Errors.INVALID_TXN_STATE;
        }
        long size = 0;
        for (Message m : batch) {
            size += m.body().length + 64;
        }
        if (t.bytes + size > maxBytes) {
            return Errors.TRANSACTION_ABORTABLE;
        }
        begin(t);
        t.bytes += size;
        t.batches.computeIfAbsent(partition, p -> new ArrayList<>()).add(batch);
        return Errors.NONE;
    }

    /**
     * EndTxn: on commit, appends the held batches (each partition's in order, partitions side by side), then commits
     * the held offsets; on abort, drops both. Completes with the error to answer.
     */
    CompletableFuture<Errors> end(final String id, final long producerId, final short epoch, final boolean commit) {
        final Map<Partition, List<List<Message>>> batches;
        final Map<String, Map<Partition, Long>> offsets;
        final Transaction t;
        synchronized (this) {
            t = byId.get(id);
            final Errors e = check(t, producerId, epoch);
            if (e != Errors.NONE) {
                return CompletableFuture.completedFuture(e);
            }
            if (!t.ongoing || !commit) {
                t.clear();
                return CompletableFuture.completedFuture(Errors.NONE);
            }
            batches = new LinkedHashMap<>(t.batches);
            offsets = new LinkedHashMap<>(t.offsets);
            t.clear();
            t.ending = true;
        }
        final List<CompletableFuture<?>> appends = new ArrayList<>();
        batches.forEach((partition, list) -> {
            CompletableFuture<List<SendResult>> chain = CompletableFuture.completedFuture(null);
            for (List<Message> batch : list) {
                chain = chain.thenCompose(x -> messaging.sendBatch(batch));
            }
            appends.add(chain.thenCompose(r -> ProduceApi.visible(messaging, partition.topic(), partition.queue(),
                    r)));
        });
        return CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).handle((x, failure) -> {
            if (failure == null) {
                offsets.forEach((group, byPartition) -> byPartition.forEach((p, offset) ->
                        messaging.commitOffset(group, p.topic(), p.queue(), offset)));
            }
            synchronized (this) {
                t.ending = false;
            }
            return failure == null ? Errors.NONE : KafkaErrors.of(failure);
        });
    }

    /** Aborts transactions past their timeout and fences their producers (the next epoch is theirs no more). */
    private synchronized void expire() {
        final long now = clock.getAsLong();
        for (Transaction t : byId.values()) {
            if (t.ongoing && !t.ending && now - t.startedAt > t.timeoutMs) {
                t.clear();
                bump(t);
            }
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
