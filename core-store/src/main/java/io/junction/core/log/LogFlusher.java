package io.junction.core.log;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.FlushMode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    private final Thread thread;
    private volatile boolean running = true;
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
                if (batch.get(i).future != null) {
                    waiting.add(batch.get(i));
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
            lock.lock();
            try {
                if (waiting.isEmpty()) {
                    try {
                        wake.awaitNanos(intervalNanos);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                batch = waiting;
                waiting = new ArrayList<>();
            } finally {
                lock.unlock();
            }
            flush(batch);
        }
        // Last flush at shutdown; whatever is still waiting is written.
        lock.lock();
        final List<PendingAppend> rest;
        try {
            rest = waiting;
            waiting = new ArrayList<>();
        } finally {
            lock.unlock();
        }
        flush(rest);
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
        try {
            log.force();
        } catch (IOException | RuntimeException e) {
            failure = new StoreException(StoreError.IO_ERROR, "fsync failed; the store stopped taking writes and "
                    + "needs a restart: " + e.getMessage(), e);
            LOG.error("Flushing the commit log failed; refusing all further writes", e);
            batch.forEach(p -> p.fail(failure));
            return;
        }
        if (mode == FlushMode.SYNC && !batch.isEmpty()) {
            long end = 0;
            for (PendingAppend p : batch) {
                end = Math.max(end, p.physicalOffset + p.record.remaining());
            }
            // With no batch waiting for the next fsync, this thread indexes what it made durable itself.
            acks.durable(batch, 0, batch.size(), end, running && nothingWaiting());
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        signal();
        thread.join(TimeUnit.SECONDS.toMillis(10));
    }
}
