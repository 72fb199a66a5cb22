package io.junction.core.log;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.FlushMode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes written records durable and hands their senders' futures on, according to the flush mode, to
 * {@link IndexedAcks}, which completes them once the records are indexed too.
 *
 * <ul>
 *   <li>SYNC: written batches wait here; one fsync covers all batches that arrived while the previous one ran
 *   (group commit), then all of them are handed on.</li>
 *   <li>ASYNC: batches are handed on as soon as their bytes are written; this thread forces the log every flush
 *   interval, or earlier once the threshold of unforced bytes is reached.</li>
 * </ul>
 *
 * <p>An unforced record ({@link LogAppender#appendUnforced}) never waits for an fsync, nor causes one: in SYNC mode
 * this thread hands it on as soon as it takes it, and it becomes durable with the next fsync, made for a forced
 * record or at the flush interval. {@link #whenDurable} tells when.
 *
 * <p>A failed fsync leaves the page cache in an unknown state, so it is fatal: every waiting and later send fails,
 * and the store must be restarted (recovery then trusts only what verifies).
 */
// close() waits for the thread to end and lets an interrupt of the stopping thread through ("try" lint).
@SuppressWarnings("try")
public final class LogFlusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogFlusher.class);

    private final CommitLog log;
    private final FlushMode mode;
    private final long intervalNanos;
    private final int thresholdBytes;
    private final IndexedAcks acks;
    /** Null on a single node; a replicated leader's committed offset, past which nothing is shown to consumers. */
    private final LogReplication replication;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private List<PendingAppend> waiting = new ArrayList<>();
    /** SYNC mode: unforced records written since this thread last looked. */
    private List<PendingAppend> written = new ArrayList<>();
    /** SYNC mode: who waits for the log to be durable past a record, by that record's log offset. */
    private final PriorityQueue<DurableWait> durableWaits =
            new PriorityQueue<>((a, b) -> Long.compare(a.physicalOffset, b.physicalOffset));
    private final Thread thread;
    private volatile boolean running = true;
    /** When this thread last began an fsync (System.nanoTime). */
    private long lastForceNanos = System.nanoTime();
    private volatile StoreException failure;

    /**
     * @param acks        acknowledges durable records once they are indexed
     * @param replication a replicated store's: records are visible once committed by the group too
     */
    public LogFlusher(final CommitLog log, final FlushMode mode, final Duration interval, final int thresholdBytes,
                      final IndexedAcks acks, final LogReplication replication) {
        this.replication = replication.enabled() ? replication : null;
        this.log = log;
        this.mode = mode;
        this.intervalNanos = interval.toNanos();
        this.thresholdBytes = thresholdBytes;
        this.acks = acks;
        this.thread = new Thread(this::run, "junction-log-flusher");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** The fatal flush failure, or null. */
    public StoreException failure() {
        return failure;
    }

    /** The log offset below which records may be shown to consumers: durable ones in SYNC mode, written in ASYNC. */
    public long visibleOffset() {
        final long local = mode == FlushMode.SYNC ? log.flushedOffset() : log.writeOffset();
        return replication == null ? local : Math.min(local, replication.committedOffset());
    }

    /**
     * Completes once the record written at {@code physicalOffset} is durable under the flush mode: forced in SYNC
     * mode (at the latest at the next flush interval), at once in ASYNC mode, which promises no more than written.
     * Fails if the log cannot be forced.
     */
    public CompletableFuture<Void> whenDurable(final long physicalOffset) {
        if (mode == FlushMode.ASYNC || log.flushedOffset() > physicalOffset) {
            return CompletableFuture.completedFuture(null);
        }
        final CompletableFuture<Void> durable = new CompletableFuture<>();
        lock.lock();
        try {
            // Looked at again under the lock this thread completes the waits under: a force that ended meanwhile
            // has either completed its waits already (then flushedOffset shows it) or will see this one.
            if (failure != null || !running) {
                durable.completeExceptionally(failure != null ? failure
                        : new StoreException(StoreError.UNAVAILABLE, "store stopped"));
            } else if (log.flushedOffset() > physicalOffset) {
                durable.complete(null);
            } else {
                durableWaits.add(new DurableWait(physicalOffset, durable));
            }
        } finally {
            lock.unlock();
        }
        return durable;
    }

    /**
     * Called by the appender after writing {@code batch[from, to)}, which ends at {@code endOffset}.
     *
     * @param writerIdle whether the calling thread has nothing else queued (in ASYNC mode it may index the batch)
     */
    void appended(final List<PendingAppend> batch, final int from, final int to, final long endOffset,
                  final boolean writerIdle) {
        if (mode == FlushMode.ASYNC) {
            acks.durable(batch, from, to, endOffset, writerIdle);
            if (endOffset - log.flushedOffset() >= thresholdBytes) {
                signal();
            }
            return;
        }
        lock.lock();
        try {
            for (int i = from; i < to; i++) {
                final PendingAppend p = batch.get(i);
                if (p.future != null) {
                    (p.unforced ? written : waiting).add(p);
                }
            }
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    private void signal() {
        lock.lock();
        try {
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (running) {
            final List<PendingAppend> batch;
            final List<PendingAppend> unforced;
            lock.lock();
            try {
                if (waiting.isEmpty() && written.isEmpty()) {
                    try {
                        wake.awaitNanos(intervalNanos);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                batch = waiting;
                waiting = new ArrayList<>();
                unforced = written;
                written = new ArrayList<>();
            } finally {
                lock.unlock();
            }
            // Unforced records first: they wait for no fsync, this one included.
            unforced.forEach(PendingAppend::complete);
            // Forced records, or the interval passed idle; and at least once an interval while only unforced ones
            // keep coming, so that they become durable too.
            if (!batch.isEmpty() || unforced.isEmpty() || System.nanoTime() - lastForceNanos >= intervalNanos) {
                flush(batch);
            }
        }
        // Last flush at shutdown; whatever is still waiting is written.
        lock.lock();
        final List<PendingAppend> rest;
        final List<PendingAppend> unforced;
        try {
            rest = waiting;
            waiting = new ArrayList<>();
            unforced = written;
            written = new ArrayList<>();
        } finally {
            lock.unlock();
        }
        unforced.forEach(PendingAppend::complete);
        flush(rest);
        failDurableWaits(new StoreException(StoreError.UNAVAILABLE, "store stopped"));
    }

    private boolean nothingWaiting() {
        lock.lock();
        try {
            return waiting.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    private void flush(final List<PendingAppend> batch) {
        if (failure != null) {
            batch.forEach(p -> p.fail(failure));
            return;
        }
        final long flushedBefore = log.flushedOffset();
        try {
            lastForceNanos = System.nanoTime();
            log.force();
        } catch (IOException | RuntimeException e) {
            failure = new StoreException(StoreError.IO_ERROR, "fsync failed; the store stopped taking writes and "
                    + "needs a restart: " + e.getMessage(), e);
            LOG.error("Flushing the commit log failed; refusing all further writes", e);
            batch.forEach(p -> p.fail(failure));
            failDurableWaits(failure);
            return;
        }
        if (mode == FlushMode.SYNC && !batch.isEmpty()) {
            long end = 0;
            for (PendingAppend p : batch) {
                end = Math.max(end, p.physicalOffset + p.record.remaining());
            }
            // With no batch waiting for the next fsync, this thread indexes what it made durable itself.
            acks.durable(batch, 0, batch.size(), end, running && nothingWaiting());
        } else if (mode == FlushMode.SYNC && log.flushedOffset() > flushedBefore) {
            acks.visibleMoved(); // records written unforced (no sender waits on the force) are visible now
        }
        completeDurableWaits(log.flushedOffset()); // after the senders': nobody waits on the other side of these
    }

    private void completeDurableWaits(final long flushed) {
        while (true) {
            final DurableWait w;
            lock.lock();
            try {
                final DurableWait first = durableWaits.peek();
                if (first == null || first.physicalOffset >= flushed) {
                    return;
                }
                w = durableWaits.poll();
            } finally {
                lock.unlock();
            }
            w.durable.complete(null);
        }
    }

    /** Fails every wait still open (the log cannot be forced, or the store stopped). */
    private void failDurableWaits(final StoreException reason) {
        final List<DurableWait> failed;
        lock.lock();
        try {
            failed = new ArrayList<>(durableWaits);
            durableWaits.clear();
        } finally {
            lock.unlock();
        }
        failed.forEach(w -> w.durable.completeExceptionally(reason));
    }

    private record DurableWait(long physicalOffset, CompletableFuture<Void> durable) {
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        signal();
        thread.join(TimeUnit.SECONDS.toMillis(10));
    }
}
