package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka transactions on the core, coordinated here, with their state durable in the {@link TransactionLog}.
 *
 * <p>A transactional producer's records are not written to their partitions while its transaction runs: each batch
 * (checked for idempotence as any) is held in memory with the offsets the transaction commits for consumer groups
 * (TxnOffsetCommit). So a partition's queue only ever holds committed records: read_committed consumers read up to the
 * high watermark with no aborted transactions to skip, and other protocols never see an aborted record.
 *
 * <p>Durability: every state change is written to the transaction log before the client is answered. InitProducerId
 * writes the id's producer id and epoch (so a restarted broker still fences an older epoch); the first
 * AddPartitionsToTxn or AddOffsetsToTxn of a transaction writes ONGOING; EndTxn(commit) first stores the held
 * batches (their bytes as produced) in the log's batch topic, then writes PREPARE_COMMIT naming them and where each
 * partition ended, then appends them to their partitions ({@link CommitApplier}: each batch one core batch, its first
 * message marked with the transaction and the batch's index), commits the held offsets, writes EMPTY and answers. A
 * crash is recovered at start by the state each id had last: PREPARE_COMMIT rolls the commit forward (the batches a
 * partition already holds are found by their marks after the recorded end, the rest are read back and appended), so a
 * commit is all or nothing; ONGOING means the held records died with the process: the transaction is aborted and the
 * epoch raised, so the producer learns it with PRODUCER_FENCED / INVALID_PRODUCER_EPOCH, exactly as when its
 * transaction times out, and starts again with InitProducerId.
 *
 * <p>Fencing: InitProducerId with a transactional id hands out the id's producer id with its epoch raised by one,
 * aborting what the previous epoch left; a request of an older epoch is PRODUCER_FENCED. A transaction that outlives
 * its timeout is aborted and its epoch raised, so the late producer is fenced too.
 *
 * <p>Ordering: state writes are issued under this object's lock, and the core appends sends in the order they are
 * issued, so the log's last record of an id is its newest state. Limits (see the README): held records live in memory
 * until commit, at most {@code kafka.max-transaction-bytes} per transaction (beyond it the transaction must abort:
 * TRANSACTION_ABORTABLE). Thread-safe.
 */
final class TransactionCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);
    /** Longest transaction timeout accepted (Kafka's transaction.max.timeout.ms default). */
    static final int MAX_TIMEOUT_MS = 15 * 60_000;
    /** States tolerated in the log beyond twice the live ids before it is compacted. */
    static final long COMPACT_SLACK = 4096;

    private final ProducerStates producers;
    private final TransactionLog log;
    private final CommitApplier commits;
    private final long maxBytes;
    private final LongSupplier clock;
    private final Map<String, Transaction> byId = new HashMap<>();
    private final Map<Long, Transaction> byProducer = new HashMap<>();
    private final ScheduledExecutorService ticker;
    private boolean compacting;

    /** A partition a transaction writes to: a core topic and queue. */
    record Partition(String topic, int queue) {
    }

    /** A held Kafka record batch: its core messages, and its bytes as produced (what a commit stores first). */
    record HeldBatch(List<Message> messages, byte[] bytes) {
    }

    /** The state of one transactional id. */
    private static final class Transaction {
        final String id;
        long producerId;
        short epoch;
        int timeoutMs;
        /** The transaction's number under this id: part of the marks its committed batches carry. */
        long sequence;
        boolean ongoing;
        /** ONGOING being written: requests of the transaction are answered once it is stored. */
        CompletableFuture<SendResult> begun;
        /** EndTxn is applying a commit (or a commit interrupted by a store failure waits to be rolled forward). */
        boolean ending;
        long startedAt;
        long bytes;
        /** The last state written: what compaction copies. */
        TransactionRecord written;
        final Map<Partition, List<HeldBatch>> batches = new LinkedHashMap<>();
        final Map<String, Map<Partition, Long>> offsets = new LinkedHashMap<>();
        /** The partitions AddPartitionsToTxn added to the open transaction (shown by DescribeTransactions). */
        final Set<Partition> added = new LinkedHashSet<>();

        Transaction(final String id) {
            this.id = id;
        }

        void clear() {
            ongoing = false;
            begun = null;
            bytes = 0;
            batches.clear();
            offsets.clear();
            added.clear();
        }

        TransactionRecord state(final TransactionRecord.State state) {
            return TransactionRecord.of(producerId, epoch, timeoutMs, state, sequence);
        }
    }

    /**
     * What ListTransactions and DescribeTransactions show of a transactional id: Kafka's state name (Empty, Ongoing,
     * PrepareCommit), when the open transaction began (-1 when none is open) and the partitions it added.
     */
    record View(String id, long producerId, short epoch, int timeoutMs, String state, long startedAt,
                Set<Partition> partitions) {
    }

    /** A producer id and epoch handed out, or the error refusing them. */
    record Identity(Errors error, long producerId, short epoch) {
    }

    TransactionCoordinator(final Messaging messaging, final ProducerStates producers, final long maxBytes,
                           final LongSupplier clock) {
        this.producers = producers;
        this.log = new TransactionLog(messaging);
        this.commits = new CommitApplier(messaging, log, clock);
        this.maxBytes = maxBytes;
        this.clock = clock;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "kafka-transaction-coordinator");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Replays the transaction log: ids get their producer ids and epochs back, interrupted commits are rolled
     * forward, open transactions aborted with their epochs raised. Completes when that is stored; then the timeouts
     * start.
     */
    CompletableFuture<Void> recover() {
        return log.load().thenCompose(states -> {
            final List<CompletableFuture<?>> done = new ArrayList<>();
            synchronized (this) {
                states.forEach((id, state) -> {
                    final Transaction t = new Transaction(id);
                    t.producerId = state.producerId();
                    t.epoch = state.epoch();
                    t.timeoutMs = state.timeoutMs();
                    t.sequence = state.sequence();
                    t.written = state;
                    byId.put(id, t);
                    byProducer.put(t.producerId, t);
                    switch (state.state()) {
                        case EMPTY -> {
                        }
                        case ONGOING -> {
                            LOG.info("transaction {} (producer {} epoch {}) was open at the crash: aborted, "
                                    + "producer fenced", id, t.producerId, t.epoch);
                            bump(t);
                            t.sequence++;
                            done.add(write(t, t.state(TransactionRecord.State.EMPTY)));
                        }
                        case PREPARE_COMMIT -> {
                            LOG.info("transaction {} (producer {} epoch {}) was committing at the crash: "
                                    + "completing its commit", id, t.producerId, t.epoch);
                            t.ending = true;
                            // A failure keeps the commit pending (retried every second) rather than failing the
                            // broker's start: the producer is told CONCURRENT_TRANSACTIONS until it is done.
                            done.add(rollForward(t, state, null).exceptionally(failure -> {
                                LOG.warn("transaction {}: completing its commit failed, retrying: {}", id,
                                        failure.toString());
                                scheduleRetry(t, state);
                                return null;
                            }));
                        }
                    }
                });
            }
            return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
        }).thenRun(() -> {
            ticker.scheduleWithFixedDelay(this::expire, 1, 1, TimeUnit.SECONDS);
            ticker.scheduleWithFixedDelay(this::compactIfDue, 60, 60, TimeUnit.SECONDS);
        });
    }

    /** Writes a state of {@code t}; call with the lock held, so states land in the order they are decided. */
    private CompletableFuture<SendResult> write(final Transaction t, final TransactionRecord state) {
        t.written = state;
        return log.write(t.id, state);
    }

    /**
     * InitProducerId with a transactional id: the id's producer with the next epoch (a new producer id once epochs
     * run out), whatever the previous epoch left aborted. {@code producerId}/{@code epoch} are the caller's current
     * ones when it asks for a bump (KIP-360), else -1. Answered once the new epoch is stored.
     */
    synchronized CompletableFuture<Identity> init(final String id, final int timeoutMs, final long producerId,
                                                  final short epoch) {
        if (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
            return CompletableFuture.completedFuture(new Identity(Errors.INVALID_TRANSACTION_TIMEOUT, -1, (short) -1));
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
                return CompletableFuture.completedFuture(new Identity(Errors.PRODUCER_FENCED, -1, (short) -1));
            }
            if (t.ending) {
                return CompletableFuture.completedFuture(new Identity(Errors.CONCURRENT_TRANSACTIONS, -1, (short) -1));
            }
            if (t.ongoing) {
                t.sequence++;
            }
            t.clear();
            bump(t);
        }
        t.timeoutMs = timeoutMs;
        final Identity identity = new Identity(Errors.NONE, t.producerId, t.epoch);
        return write(t, t.state(TransactionRecord.State.EMPTY)).handle((r, failure) -> failure == null ? identity
                : new Identity(KafkaErrors.of(failure), -1, (short) -1));
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
    private static Errors check(final Transaction t, final long producerId, final short epoch) {
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

    /** Starts the transaction if it is not running: completes with NONE once ONGOING is stored. */
    private CompletableFuture<Errors> begin(final Transaction t) {
        if (!t.ongoing) {
            t.ongoing = true;
            t.startedAt = clock.getAsLong();
            t.begun = write(t, t.state(TransactionRecord.State.ONGOING));
        }
        final CompletableFuture<SendResult> begun = t.begun;
        return begun.handle((r, failure) -> failure == null ? Errors.NONE : KafkaErrors.of(failure));
    }

    /** AddPartitionsToTxn: the partitions join the transaction (their records are held until it ends). */
    synchronized CompletableFuture<Errors> addPartitions(final String id, final long producerId, final short epoch,
                                                         final Collection<Partition> partitions) {
        final Transaction t = byId.get(id);
        final Errors e = check(t, producerId, epoch);
        if (e != Errors.NONE) {
            return CompletableFuture.completedFuture(e);
        }
        final CompletableFuture<Errors> begun = begin(t);
        t.added.addAll(partitions);
        return begun;
    }

    /** AddOffsetsToTxn: a consumer group's offsets will be committed with the transaction. */
    synchronized CompletableFuture<Errors> addOffsets(final String id, final long producerId, final short epoch) {
        return addPartitions(id, producerId, epoch, List.of());
    }

    /** Every transactional id's state, for ListTransactions and DescribeTransactions. */
    synchronized List<View> views() {
        final List<View> out = new ArrayList<>(byId.size());
        for (Transaction t : byId.values()) {
            final String state = t.ending ? "PrepareCommit" : t.ongoing ? "Ongoing" : "Empty";
            out.add(new View(t.id, t.producerId, t.epoch, t.timeoutMs, state, t.ongoing ? t.startedAt : -1,
                    Set.copyOf(t.added)));
        }
        return out;
    }

    /** TxnOffsetCommit: offsets of core group {@code group} held until the transaction commits. */
    synchronized CompletableFuture<Errors> holdOffsets(final String id, final long producerId, final short epoch,
                                                       final String group, final Map<Partition, Long> offsets) {
        final Transaction t = byId.get(id);
        final Errors e = check(t, producerId, epoch);
        if (e != Errors.NONE) {
            return CompletableFuture.completedFuture(e);
        }
        final CompletableFuture<Errors> begun = begin(t);
        t.offsets.computeIfAbsent(group, g -> new LinkedHashMap<>()).putAll(offsets);
        return begun;
    }

    /**
     * Holds a transactional batch for its partition until the transaction ends. The partition must have been added
     * (AddPartitionsToTxn), so the transaction is known to be open should the broker crash.
     */
    synchronized Errors hold(final long producerId, final short epoch, final Partition partition,
                             final HeldBatch batch) {
        final Transaction t = byProducer.get(producerId);
        if (t == null) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (epoch < t.epoch) {
            return Errors.INVALID_PRODUCER_EPOCH; // the client takes it as being fenced
        }
        if (epoch > t.epoch || t.ending || !t.ongoing) {
            return Errors.INVALID_TXN_STATE;
        }
        long size = batch.bytes().length;
        for (Message m : batch.messages()) {
            size += m.body().length + 64;
        }
        if (t.bytes + size > maxBytes) {
            return Errors.TRANSACTION_ABORTABLE;
        }
        t.bytes += size;
        t.batches.computeIfAbsent(partition, p -> new ArrayList<>()).add(batch);
        return Errors.NONE;
    }

    /**
     * EndTxn. Abort drops what is held and stores EMPTY. Commit stores the held batches and PREPARE_COMMIT, appends
     * the batches, commits the held offsets and stores EMPTY (see the class comment). Completes with the error to
     * answer.
     */
    CompletableFuture<Errors> end(final String id, final long producerId, final short epoch, final boolean commit) {
        final Map<Partition, List<HeldBatch>> batches;
        final Map<String, Map<Partition, Long>> offsets;
        final Transaction t;
        synchronized (this) {
            t = byId.get(id);
            final Errors e = check(t, producerId, epoch);
            if (e != Errors.NONE) {
                return CompletableFuture.completedFuture(e);
            }
            if (!t.ongoing) {
                return CompletableFuture.completedFuture(Errors.NONE); // nothing was added: nothing to end
            }
            if (!commit) {
                t.clear();
                t.sequence++;
                return write(t, t.state(TransactionRecord.State.EMPTY))
                        .handle((r, failure) -> failure == null ? Errors.NONE : KafkaErrors.of(failure));
            }
            batches = new LinkedHashMap<>(t.batches);
            offsets = new LinkedHashMap<>(t.offsets);
            t.clear();
            t.ending = true;
        }
        final CompletableFuture<Errors> answer = new CompletableFuture<>();
        prepare(t, batches, offsets).whenComplete((prepared, failure) -> {
            if (failure != null) {
                // Nothing of the commit is stored: it cannot happen any more. Abort and fence, so a retried EndTxn
                // is told (PRODUCER_FENCED) instead of finding no transaction and answering success.
                LOG.warn("transaction {}: its commit could not be stored, aborted: {}", id, failure.toString());
                synchronized (this) {
                    t.ending = false;
                    bump(t);
                    t.sequence++;
                    write(t, t.state(TransactionRecord.State.EMPTY));
                }
                answer.complete(KafkaErrors.of(failure));
                return;
            }
            rollForward(t, prepared, batches).whenComplete((x, applyFailure) -> {
                if (applyFailure != null) {
                    // The commit is decided and stored: it completes later (the ticker retries); until then the
                    // producer's retries of EndTxn are told CONCURRENT_TRANSACTIONS.
                    LOG.warn("transaction {}: applying its commit failed, retrying: {}", id, applyFailure.toString());
                    scheduleRetry(t, prepared);
                }
                answer.complete(applyFailure == null ? Errors.NONE : KafkaErrors.of(applyFailure));
            });
        });
        return answer;
    }

    /**
     * Stores the held batches, then PREPARE_COMMIT naming them and each partition's end; completes with that record
     * once it is stored.
     */
    private CompletableFuture<TransactionRecord> prepare(final Transaction t,
                                                         final Map<Partition, List<HeldBatch>> batches,
                                                         final Map<String, Map<Partition, Long>> offsets) {
        return commits.store(t.id, batches).thenCompose(partitions -> {
            final TransactionRecord record;
            final CompletableFuture<SendResult> written;
            synchronized (this) {
                record = new TransactionRecord(t.producerId, t.epoch, t.timeoutMs,
                        TransactionRecord.State.PREPARE_COMMIT, t.sequence, partitions, offsets);
                written = write(t, record);
            }
            return written.thenApply(r -> record);
        });
    }

    /**
     * Completes a stored commit ({@link CommitApplier#apply}: all batches when {@code held} is given, the live path;
     * else those not yet in their partitions), then stores EMPTY with the next transaction number.
     */
    private CompletableFuture<Void> rollForward(final Transaction t, final TransactionRecord prepared,
                                                final Map<Partition, List<HeldBatch>> held) {
        return commits.apply(prepared, held).thenRun(() -> {
            synchronized (this) {
                t.ending = false;
                if (t.sequence == prepared.sequence()) {
                    t.sequence++;
                    write(t, t.state(TransactionRecord.State.EMPTY));
                }
            }
        });
    }

    private void scheduleRetry(final Transaction t, final TransactionRecord prepared) {
        ticker.schedule(() -> rollForward(t, prepared, null).whenComplete((x, failure) -> {
            if (failure != null) {
                LOG.warn("transaction {}: applying its commit failed again, retrying: {}", t.id, failure.toString());
                scheduleRetry(t, prepared);
            }
        }), 1, TimeUnit.SECONDS);
    }

    /** Aborts transactions past their timeout and fences their producers (the next epoch is theirs no more). */
    private synchronized void expire() {
        final long now = clock.getAsLong();
        for (Transaction t : byId.values()) {
            if (t.ongoing && !t.ending && now - t.startedAt > t.timeoutMs) {
                t.clear();
                bump(t);
                t.sequence++;
                write(t, t.state(TransactionRecord.State.EMPTY));
            }
        }
    }

    /** Copies the live states forward when the log holds many more records than ids, so replay stays short. */
    private void compactIfDue() {
        synchronized (this) {
            if (compacting || log.length() <= 2L * byId.size() + COMPACT_SLACK) {
                return;
            }
            compacting = true;
            final Map<String, TransactionRecord> live = new HashMap<>();
            byId.forEach((id, t) -> {
                if (t.written != null) {
                    live.put(id, t.written);
                }
            });
            log.compact(live).whenComplete((x, failure) -> {
                synchronized (this) {
                    compacting = false;
                }
                if (failure != null) {
                    LOG.warn("{}: compaction failed, replay starts where it did: {}", TransactionLog.STATES,
                            failure.toString());
                }
            });
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
