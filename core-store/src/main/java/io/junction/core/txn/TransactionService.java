package io.junction.core.txn;

import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageIds;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactional messages: a half message is stored invisibly in {@link SystemNames#HALF_TOPIC} until its
 * producer ends the transaction; a commit delivers the real message to its topic and queue, a rollback drops it; each
 * resolution is recorded as an op record in {@link SystemNames#OP_TOPIC}. Half messages left unresolved are
 * checked back with their producer group through a {@link TransactionChecker}, first {@code firstCheck} after they
 * were stored, then every {@code checkInterval}; when a check is due after {@code maxChecks} checks, the timeout
 * resolution applies instead (as RocketMQ's broker discards a half message checked {@code transactionCheckMax}
 * times).
 *
 * <p>Design: the half records stay in the log; in memory the service keeps one {@link PendingHalf} per unresolved
 * one, keyed by its log offset. A resolution claims the pending half (so two ends never both act), delivers (commit),
 * appends the op record, and only then forgets it; a failure un-claims it and the caller gets the error. Check
 * counts are op records too, so counts and check times survive a restart. At start {@link #recover()} replays both
 * topics from their saved replay positions: halves become pending, op records close or count them. The replay
 * positions follow the oldest pending half (and the op queue position noted before it was appended), never ahead of
 * it. A commit interrupted by a crash between delivering and recording its op is caught when the recovered half is
 * committed again: a copy already stored after the half record is not delivered twice.
 *
 * <p>Every time decision reads the injected store clock.
 */
public final class TransactionService {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionService.class);
    private static final int REPLAY_BATCH = 256;
    /** Most half messages one check round asks about or resolves; the rest wait for the next round. */
    private static final int MAX_PER_CHECK = 2048;

    private final TransactionStore store;
    private final LongSupplier clock;
    private final long firstCheck;
    private final long checkInterval;
    private final int maxChecks;
    private final TransactionResolution timeoutResolution;
    private final Map<Long, PendingHalf> pending = new ConcurrentHashMap<>();
    private final Map<String, Long> byUniqueId = new ConcurrentHashMap<>();
    /** Half appends not yet registered as pending; replay positions must not move past them. */
    private final AtomicInteger halvesInProgress = new AtomicInteger();
    private final ReentrantLock checkLock = new ReentrantLock();
    /** One per front-end that can reach producers (Remoting, gRPC); each asks the producers it has. */
    private final List<TransactionChecker> checkers = new CopyOnWriteArrayList<>();

    /**
     * @param firstCheckMillis    time from storing a half message to its first check-back, unless the message sets
     *                            its own ({@code CHECK_IMMUNITY_TIME_IN_SECONDS})
     * @param checkIntervalMillis time between check-backs
     * @param maxChecks           check-backs before {@code timeoutResolution} applies
     * @param timeoutResolution   COMMIT or ROLLBACK
     */
    public TransactionService(final TransactionStore store, final LongSupplier clock, final long firstCheckMillis,
                              final long checkIntervalMillis, final int maxChecks,
                              final TransactionResolution timeoutResolution) {
        if (timeoutResolution == TransactionResolution.UNKNOWN) {
            throw new IllegalArgumentException("the timeout resolution must be COMMIT or ROLLBACK");
        }
        this.store = store;
        this.clock = clock;
        this.firstCheck = firstCheckMillis;
        this.checkInterval = checkIntervalMillis;
        this.maxChecks = maxChecks;
        this.timeoutResolution = Objects.requireNonNull(timeoutResolution, "timeoutResolution");
    }

    /** Sets (or with null removes) the hook asking producers about unresolved transactions. */
    public void addChecker(final TransactionChecker checker) {
        checkers.add(Objects.requireNonNull(checker, "checker"));
    }

    public void removeChecker(final TransactionChecker checker) {
        checkers.remove(checker);
    }

    // ---------------------------------------------------------------------------------------------------- prepare

    /**
     * Stores a half message for {@code realTopic}/{@code realQueueId} (queue already chosen, unique id set). The
     * result names the real topic and queue, and the half record's queue and log offsets (what an end names).
     */
    public CompletableFuture<SendResult> prepare(final Message message, final String realTopic,
                                                 final int realQueueId) {
        final String uniqueId = message.uniqueId();
        final long opMark = store.maxOffset(SystemNames.OP_TOPIC);
        halvesInProgress.incrementAndGet();
        final CompletableFuture<TransactionStore.Stored> stored;
        try {
            stored = store.appendSystem(TransactionMessages.half(message, realTopic, realQueueId));
        } catch (RuntimeException e) {
            halvesInProgress.decrementAndGet();
            throw e;
        }
        return stored.thenApply(s -> {
            register(new PendingHalf(s.logOffset(), s.queueOffset(), s.storeTimestamp(), uniqueId,
                    TransactionMessages.transactionId(message.properties()),
                    message.property(MessageProperties.PRODUCER_GROUP), realTopic,
                    TransactionMessages.firstCheckDelay(message.properties(), firstCheck), opMark, false));
            return new SendResult(uniqueId, realTopic, realQueueId, s.queueOffset(), s.logOffset(), s.storeHost());
        }).whenComplete((r, e) -> halvesInProgress.decrementAndGet());
    }

    private void register(final PendingHalf p) {
        pending.put(p.halfOffset, p);
        if (p.uniqueId != null) {
            byUniqueId.put(p.uniqueId, p.halfOffset);
        }
    }

    private void forget(final PendingHalf p) {
        pending.remove(p.halfOffset, p);
        if (p.uniqueId != null) {
            byUniqueId.remove(p.uniqueId, p.halfOffset);
        }
    }

    // ---------------------------------------------------------------------------------------------------- end

    /**
     * Ends a transaction. Fails with ILLEGAL_ARGUMENT, changing nothing, when no unresolved half message matches
     * (unknown, or already resolved) or a given producer group or message id does not match it. UNKNOWN leaves it
     * pending.
     */
    public CompletableFuture<Void> end(final TransactionEnd end) {
        final PendingHalf p;
        try {
            p = find(end);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (end.resolution() == TransactionResolution.UNKNOWN) {
            return CompletableFuture.completedFuture(null);
        }
        if (!p.resolving.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                    "half message " + p.uniqueId + " is being resolved already"));
        }
        return resolve(p, end.resolution());
    }

    private PendingHalf find(final TransactionEnd end) {
        PendingHalf p = null;
        if (end.commitLogOffset() >= 0) {
            p = pending.get(end.commitLogOffset());
        } else if (end.messageId() != null) {
            final Long offset = byUniqueId.get(end.messageId());
            p = offset == null ? null : pending.get(offset);
        } else if (end.transactionId() != null) {
            for (PendingHalf candidate : pending.values()) {
                if (end.transactionId().equals(candidate.transactionId)) {
                    p = candidate;
                    break;
                }
            }
        }
        if (p == null) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "no unresolved half message "
                    + describe(end) + ": unknown, or already committed or rolled back");
        }
        if (end.messageId() != null && !end.messageId().equals(p.uniqueId)
                && MessageIds.commitLogOffsetOf(end.messageId()) != p.halfOffset) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "message id " + end.messageId()
                    + " does not match the half message at log offset " + p.halfOffset + " (" + p.uniqueId + ")");
        }
        if (end.producerGroup() != null && p.producerGroup != null && !end.producerGroup().equals(p.producerGroup)) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "producer group " + end.producerGroup()
                    + " does not match the half message's group " + p.producerGroup);
        }
        return p;
    }

    private static String describe(final TransactionEnd end) {
        return end.commitLogOffset() >= 0 ? "at log offset " + end.commitLogOffset()
                : end.messageId() != null ? "with id " + end.messageId()
                : "with transaction id " + end.transactionId();
    }

    /** Resolves a claimed half message; on failure it is un-claimed (still pending) and the future fails. */
    private CompletableFuture<Void> resolve(final PendingHalf p, final TransactionResolution resolution) {
        final CompletableFuture<?> delivered;
        try {
            delivered = resolution == TransactionResolution.COMMIT ? deliver(p)
                    : CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            p.resolving.set(false);
            return CompletableFuture.failedFuture(e);
        }
        final OpRecord.Type type = resolution == TransactionResolution.COMMIT ? OpRecord.Type.COMMIT
                : OpRecord.Type.ROLLBACK;
        return delivered.thenCompose(v -> appendOp(new OpRecord(type, p.halfOffset, p.checkTimes,
                clock.getAsLong()))).handle((r, e) -> {
                    if (e != null) {
                        p.resolving.set(false);
                        throw e instanceof CompletionException ce ? ce : new CompletionException(e);
                    }
                    forget(p);
                    return null;
                });
    }

    private CompletableFuture<?> deliver(final PendingHalf p) {
        final StoredMessage half = store.readRecord(p.halfOffset);
        final Message real = half == null ? null : TransactionMessages.committed(half);
        if (real == null) {
            LOG.warn("Half message {} at log offset {} is gone (retention) or not a half record; its commit "
                    + "delivers nothing", p.uniqueId, p.halfOffset);
            return CompletableFuture.completedFuture(null);
        }
        if (p.recovered && p.uniqueId != null && store.storedAfter(real.topic(), p.uniqueId, p.halfOffset)) {
            LOG.info("Half message {} was delivered before the restart; recording its commit only", p.uniqueId);
            return CompletableFuture.completedFuture(null);
        }
        return store.deliver(real);
    }

    private CompletableFuture<TransactionStore.Stored> appendOp(final OpRecord op) {
        return store.appendSystem(Message.builder(SystemNames.OP_TOPIC).queueId(0)
                .tag(op.closes() ? "d" : "c").body(op.encode()).build());
    }

    // ---------------------------------------------------------------------------------------------------- check

    /**
     * Checks back every due half message: asks the checker (one more check counted and recorded), or, once it was
     * checked {@code maxChecks} times, applies the timeout resolution. Without a checker nothing is due.
     *
     * @return how many half messages were checked or resolved
     */
    public int check() {
        checkLock.lock();
        try {
            final List<TransactionChecker> askers = List.copyOf(checkers);
            if (askers.isEmpty()) {
                return 0;
            }
            final long now = clock.getAsLong();
            final List<PendingHalf> due = new ArrayList<>();
            for (PendingHalf p : pending.values()) {
                if (!p.resolving.get() && p.nextCheck(checkInterval) <= now) {
                    due.add(p);
                }
            }
            due.sort((a, b) -> Long.compare(a.halfOffset, b.halfOffset));
            int acted = 0;
            for (PendingHalf p : due.size() > MAX_PER_CHECK ? due.subList(0, MAX_PER_CHECK) : due) {
                try {
                    if (p.checkTimes >= maxChecks) {
                        acted += timeOut(p) ? 1 : 0;
                    } else {
                        acted += ask(askers, p, now) ? 1 : 0;
                    }
                } catch (RuntimeException e) {
                    LOG.warn("Checking half message {} failed; will retry", p.uniqueId, e);
                }
            }
            return acted;
        } finally {
            checkLock.unlock();
        }
    }

    private boolean timeOut(final PendingHalf p) {
        if (!p.resolving.compareAndSet(false, true)) {
            return false;
        }
        LOG.warn("Transaction of half message {} (producer group {}, topic {}) still unresolved after {} checks: "
                + "applying {}", p.uniqueId, p.producerGroup, p.realTopic, p.checkTimes, timeoutResolution);
        try {
            resolve(p, timeoutResolution).join();
        } catch (CompletionException e) {
            if (timeoutResolution != TransactionResolution.COMMIT || !isPermanent(StoreException.errorOf(e))
                    || !p.resolving.compareAndSet(false, true)) {
                throw e;
            }
            LOG.warn("Half message {} cannot be delivered to {} ({}); rolled back instead", p.uniqueId, p.realTopic,
                    e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
            resolve(p, TransactionResolution.ROLLBACK).join();
        }
        return true;
    }

    /** Failures a retry cannot fix: the message can never be delivered where it belongs. */
    private static boolean isPermanent(final StoreError error) {
        return error == StoreError.TOPIC_NOT_FOUND || error == StoreError.PERMISSION_DENIED
                || error == StoreError.ILLEGAL_MESSAGE || error == StoreError.MESSAGE_TOO_LARGE
                || error == StoreError.QUEUE_NOT_FOUND;
    }

    private boolean ask(final List<TransactionChecker> askers, final PendingHalf p, final long now) {
        final StoredMessage half = store.readRecord(p.halfOffset);
        if (half == null) {
            if (p.resolving.compareAndSet(false, true)) {
                LOG.warn("Half message {} at log offset {} is gone (retention); rolled back", p.uniqueId,
                        p.halfOffset);
                resolve(p, TransactionResolution.ROLLBACK).join();
                return true;
            }
            return false;
        }
        final int times = p.checkTimes + 1;
        appendOp(new OpRecord(OpRecord.Type.CHECK, p.halfOffset, times, now)).join();
        p.checkTimes = times;
        p.lastCheck = now;
        for (TransactionChecker asker : askers) {
            try {
                asker.check(p.producerGroup, half, times);
            } catch (RuntimeException e) {
                LOG.warn("Transaction checker failed for half message {}", p.uniqueId, e);
            }
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------------- restart

    /**
     * Rebuilds the unresolved half messages by replaying the half and op topics from their replay positions (at
     * start, before any send).
     */
    public void recover() {
        final long opStart = start(SystemNames.OP_TOPIC);
        long offset = start(SystemNames.HALF_TOPIC);
        int halves = 0;
        while (true) {
            final PullResult r = store.read(SystemNames.HALF_TOPIC, offset, REPLAY_BATCH);
            for (StoredMessage m : r.messages()) {
                final String realTopic = m.realTopic();
                if (realTopic == null) {
                    continue;
                }
                register(new PendingHalf(m.commitLogOffset(), m.queueOffset(), m.storeTimestamp(), m.uniqueId(),
                        TransactionMessages.transactionId(m.properties()),
                        m.property(MessageProperties.PRODUCER_GROUP), realTopic,
                        TransactionMessages.firstCheckDelay(m.properties(), firstCheck), opStart, true));
                halves++;
            }
            if (r.nextOffset() <= offset || r.messages().isEmpty() && r.nextOffset() >= r.maxOffset()) {
                break;
            }
            offset = r.nextOffset();
        }
        offset = opStart;
        while (true) {
            final PullResult r = store.read(SystemNames.OP_TOPIC, offset, REPLAY_BATCH);
            for (StoredMessage m : r.messages()) {
                final OpRecord op = OpRecord.decode(m.body());
                final PendingHalf p = op == null ? null : pending.get(op.halfOffset());
                if (p == null) {
                    continue;
                }
                if (op.closes()) {
                    forget(p);
                } else if (op.checkTimes() > p.checkTimes) {
                    p.checkTimes = op.checkTimes();
                    p.lastCheck = Math.max(p.lastCheck, op.time());
                }
            }
            if (r.nextOffset() <= offset || r.messages().isEmpty() && r.nextOffset() >= r.maxOffset()) {
                break;
            }
            offset = r.nextOffset();
        }
        LOG.info("Transactions: {} half messages unresolved after replaying {}", pending.size(), halves);
    }

    private long start(final String topic) {
        return Math.max(store.replayPosition(topic), store.minOffset(topic));
    }

    /**
     * Moves the replay positions up to the oldest unresolved half message and the op position noted before it was
     * appended (run periodically, before the checkpoint; the store persists them with the consumer offsets).
     */
    public void commitReplayPositions() {
        // Ends first, then no half half-registered, then the pending ones (the PopService argument): a half stored
        // below an end is either registered before the pending set is read, or still in progress (then skip).
        final long halfEnd = store.maxOffset(SystemNames.HALF_TOPIC);
        final long opEnd = store.maxOffset(SystemNames.OP_TOPIC);
        if (halvesInProgress.get() > 0) {
            return;
        }
        long halfPosition = halfEnd;
        long opPosition = opEnd;
        for (PendingHalf p : pending.values()) {
            halfPosition = Math.min(halfPosition, p.halfQueueOffset);
            opPosition = Math.min(opPosition, p.opMark);
        }
        if (halfPosition > store.replayPosition(SystemNames.HALF_TOPIC)) {
            store.saveReplayPosition(SystemNames.HALF_TOPIC, halfPosition);
        }
        if (opPosition > store.replayPosition(SystemNames.OP_TOPIC)) {
            store.saveReplayPosition(SystemNames.OP_TOPIC, opPosition);
        }
    }

    /** Half messages neither committed nor rolled back yet. */
    public int pendingCount() {
        return pending.size();
    }
}
