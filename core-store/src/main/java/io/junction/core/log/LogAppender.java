package io.junction.core.log;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.RecordLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.ToLongBiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log's one writer. Senders hand in rendered records from any thread; the appender thread drains them in batches,
 * stamps each with its queue offset, log offset and store time, copies the batch into a staging buffer and writes it
 * with one system call, then passes the batch to the {@link LogFlusher}, which completes the senders' futures once
 * the bytes are durable under the flush mode.
 *
 * <p>Batching is what makes SYNC mode fast: while one fsync runs, the next batch gathers, and one fsync covers it.
 */
// close() waits for the thread to end and lets an interrupt of the stopping thread through ("try" lint).
@SuppressWarnings("try")
public final class LogAppender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogAppender.class);
    private static final int STAGING_SIZE = 1 << 20;
    private static final int MAX_BATCH = 4096;

    private final CommitLog log;
    private final LogFlusher flusher;
    private final QueueOffsetCounter queueOffsets;
    private final LongSupplier clock;
    private final LogReplication replication;
    /**
     * Set when this store must take no more writes: it is a follower, or a replicated range failed (its local tail
     * may not be the group's). Only reopening the store lifts it.
     */
    private volatile StoreException fenced;
    /** Where the batch being appended starts (appender thread only). */
    private long batchStart;
    /** Lock-free: senders on many threads must not contend on a lock to hand a record over. */
    private final ConcurrentLinkedQueue<PendingAppend> queue = new ConcurrentLinkedQueue<>();
    /** Sealed queues and their final ends: every later write to one is refused (see {@link #seal}). */
    private final QueueSeals seals = new QueueSeals();
    /** Set while the appender thread is about to park; senders unpark it only then. */
    private volatile boolean idle;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_SIZE);
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param initialQueueOffset where a queue continues when first appended to after start
     * @param clock              store time source (epoch ms)
     */
    public LogAppender(final CommitLog log, final LogFlusher flusher,
                       final ToLongBiFunction<String, Integer> initialQueueOffset, final LongSupplier clock) {
        this(log, flusher, initialQueueOffset, clock, LogReplication.NONE);
    }

    /** @param replication where written ranges go before senders are answered (a replicated store's leader) */
    public LogAppender(final CommitLog log, final LogFlusher flusher,
                       final ToLongBiFunction<String, Integer> initialQueueOffset, final LongSupplier clock,
                       final LogReplication replication) {
        this.replication = replication;
        this.log = log;
        this.flusher = flusher;
        this.queueOffsets = new QueueOffsetCounter(initialQueueOffset);
        this.clock = clock;
        this.thread = new Thread(this::run, "junction-log-appender");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Refuses every later append with {@code reason} (a follower's store, or a replica that lost its group). */
    public void fence(final StoreException reason) {
        fenced = reason;
    }

    /**
     * Appends a record rendered by {@link RecordCodec#encode} (position 0 to limit). The future completes when the
     * record is durable under the flush mode, or fails with a {@link StoreException}.
     */
    public CompletableFuture<AppendResult> append(final ByteBuffer record, final String topic, final int queueId) {
        return enqueue(new PendingAppend(record, topic, queueId, new CompletableFuture<>(), null, null, false));
    }

    /**
     * Appends a record whose loss in a crash costs only a repeat, never a message (a POP checkpoint: its messages
     * are delivered again). The future completes once the record is written (with replication, once its group
     * committed it), without waiting for the fsync of the SYNC flush mode; the record becomes durable with the next
     * fsync, which {@link LogFlusher#whenDurable} tells.
     */
    public CompletableFuture<AppendResult> appendUnforced(final ByteBuffer record, final String topic,
                                                          final int queueId) {
        return enqueue(new PendingAppend(record, topic, queueId, new CompletableFuture<>(), null, null, true));
    }

    /**
     * Appends a batch: records rendered by {@link RecordCodec#encode} back to back in {@code records} (position 0 to
     * limit), {@code members[k]} being where record k starts, all of one queue. They are written as one unit (see
     * {@link CommitLog#writeUnit}): all land, contiguously and with consecutive queue offsets, or none does. The result
     * names the first record; record k is at {@code physicalOffset + members[k]}, queue offset {@code queueOffset + k}.
     * The caller keeps the unit within a segment (at most {@code segmentSize - BLANK_LENGTH} bytes).
     */
    public CompletableFuture<AppendResult> appendBatch(final ByteBuffer records, final int[] members,
                                                       final String topic, final int queueId) {
        return enqueue(new PendingAppend(records, topic, queueId, new CompletableFuture<>(), null, members.clone(),
                false));
    }

    private CompletableFuture<AppendResult> enqueue(final PendingAppend append) {
        if (!running) {
            append.fail(new StoreException(StoreError.UNAVAILABLE, "store is stopping"));
        } else if (fenced != null) {
            append.fail(fenced);
        } else {
            queue.add(append);
            if (idle) {
                LockSupport.unpark(thread);
            }
        }
        return append.future;
    }

    /** Runs {@code action} on the appender thread between batches (e.g. forgetting a deleted topic's counters). */
    public CompletableFuture<Void> runOnAppender(final Runnable action) {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        queue.add(new PendingAppend(null, null, 0, null, () -> {
            action.run();
            done.complete(null);
        }));
        LockSupport.unpark(thread);
        return done;
    }

    /**
     * Seals a queue on the appender thread, in log order: the answer is its final end, the queue offset the next write
     * would have had; every record queued behind the seal and every later one for that queue is refused with
     * {@link StoreError#QUEUE_SEALED}. Sealing a sealed queue answers the same end.
     */
    public CompletableFuture<Long> seal(final String topic, final int queueId) {
        if (fenced != null) {
            return CompletableFuture.failedFuture(fenced);
        }
        if (!running) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE, "store is stopping"));
        }
        final long[] end = new long[1];
        return runOnAppender(() -> end[0] = seals.seal(topic, queueId, queueOffsets.peek(topic, queueId)))
                .thenApply(v -> end[0]);
    }

    /** Restores a seal found in the log at open, before the appender starts. */
    public void restoreSeal(final String topic, final int queueId, final long end) {
        seals.seal(topic, queueId, end);
    }

    /** The final end of a sealed queue, or -1 while it is open (any thread). */
    public long sealedEnd(final String topic, final int queueId) {
        return seals.end(topic, queueId);
    }

    /** Forgets the queue offsets of a deleted topic. */
    public CompletableFuture<Void> forgetTopic(final String topic) {
        return runOnAppender(() -> {
            queueOffsets.forget(topic);
            seals.forget(topic);
        });
    }

    private void run() {
        final List<PendingAppend> batch = new ArrayList<>(MAX_BATCH);
        while (running || !queue.isEmpty()) {
            try {
                PendingAppend next = queue.poll();
                if (next == null) {
                    idle = true;
                    // Re-check after announcing idleness: a sender that saw idle == false has already queued.
                    if (queue.isEmpty() && running) {
                        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                    }
                    idle = false;
                    continue;
                }
                batch.add(next);
                // A control runs alone, so the records of a batch all meet the same seals.
                if (next.control != null) {
                    next.control.run();
                    continue;
                }
                while (batch.size() < MAX_BATCH && (next = queue.peek()) != null && next.control == null) {
                    batch.add(queue.poll());
                }
                appendBatch(batch);
            } catch (RuntimeException | Error e) {
                LOG.error("Appender failed on a batch of {}", batch.size(), e);
                fail(batch, 0, new StoreException(StoreError.IO_ERROR, "append failed: " + e, e));
            } finally {
                batch.clear();
            }
        }
        for (PendingAppend r; (r = queue.poll()) != null; ) {
            if (r.future != null) {
                r.future.completeExceptionally(new StoreException(StoreError.UNAVAILABLE, "store stopped"));
            }
        }
    }

    private void appendBatch(final List<PendingAppend> batch) {
        if (flusher.failure() != null) {
            fail(batch, 0, flusher.failure());
            return;
        }
        if (fenced != null) {
            fail(batch, 0, fenced);
            return;
        }
        if (!seals.isEmpty()) {
            refuseSealed(batch);
            if (batch.isEmpty()) {
                return;
            }
        }
        int chunkStart = 0;
        staging.clear();
        batchStart = log.writeOffset();
        long stagingOffset = batchStart;
        final long now = clock.getAsLong();
        for (int i = 0; i < batch.size(); i++) {
            final PendingAppend r = batch.get(i);
            if (r.members != null) {
                // A batch is written on its own, as a unit: the staging buffer would mix it with single records.
                if (!writeStaging(batch, chunkStart, i, stagingOffset) || !writeUnit(batch, i, now)) {
                    return;
                }
                chunkStart = i + 1;
                stagingOffset = log.writeOffset();
                continue;
            }
            final int length = r.record.remaining();
            final long offset = stagingOffset + staging.position();
            if (log.remainingInSegment(offset) < length + RecordLayout.BLANK_LENGTH
                    && log.remainingInSegment(offset) < log.segmentSize()) {
                if (!writeStaging(batch, chunkStart, i, stagingOffset)) {
                    return;
                }
                chunkStart = i;
                try {
                    log.roll();
                    log.ensureSegment(log.writeOffset());
                } catch (IOException e) {
                    fail(batch, i, ioFailure(e));
                    return;
                }
                stagingOffset = log.writeOffset();
            } else if (staging.remaining() < length) {
                if (!writeStaging(batch, chunkStart, i, stagingOffset)) {
                    return;
                }
                chunkStart = i;
                stagingOffset = log.writeOffset();
            }
            if (offset == stagingOffset && staging.position() == 0) {
                try {
                    log.ensureSegment(stagingOffset - stagingOffset % log.segmentSize());
                } catch (IOException e) {
                    fail(batch, i, ioFailure(e));
                    return;
                }
            }
            r.physicalOffset = stagingOffset + staging.position();
            r.queueOffset = queueOffsets.next(r.topic, r.queueId);
            r.assigned = true;
            r.storeTimestamp = now;
            RecordCodec.seal(r.record, r.queueId, r.queueOffset, r.physicalOffset, now, 0);
            if (length > staging.capacity()) {
                // Larger than the staging buffer: write it on its own.
                if (!writeDirect(batch, i, r.record)) {
                    return;
                }
                chunkStart = i + 1;
                stagingOffset = log.writeOffset();
            } else {
                staging.put(r.record.duplicate());
            }
        }
        if (!writeStaging(batch, chunkStart, batch.size(), stagingOffset)) {
            return;
        }
        handOn(batch, 0, batch.size(), batchStart);
    }

    /** Fails and drops the batch's records aimed at a sealed queue. */
    private void refuseSealed(final List<PendingAppend> batch) {
        batch.removeIf(r -> {
            final long end = seals.end(r.topic, r.queueId);
            if (end < 0) {
                return false;
            }
            r.fail(new StoreException(StoreError.QUEUE_SEALED, "queue " + r.queueId + " of topic " + r.topic
                    + " is sealed at offset " + end + ": its writes have moved elsewhere"));
            return true;
        });
    }

    /**
     * Passes written requests {@code batch[from, to)} to the flusher; with replication, only once their range
     * {@code [start, writeOffset)} is committed. A failed replication fences the store and fails them: their bytes are
     * written here, but the group may not have them, so they are never acknowledged.
     */
    private void handOn(final List<PendingAppend> batch, final int from, final int to, final long start) {
        final long end = log.writeOffset();
        if (!replication.enabled() || end == start) {
            // Nothing else queued: this thread would park next, so it may index the batch itself.
            flusher.appended(batch, from, to, end, queue.isEmpty());
            return;
        }
        final List<PendingAppend> held = new ArrayList<>(batch.subList(from, to));
        replication.replicate(log, start, end).whenComplete((ok, failure) -> {
            if (failure == null) {
                flusher.appended(held, 0, held.size(), end, false);
                return;
            }
            final StoreException refusal = new StoreException(StoreError.UNAVAILABLE,
                    "not committed by a majority of the cluster: " + failure.getMessage(), failure);
            if (fenced == null) {
                LOG.warn("Replicating log {}..{} failed; this replica takes no more writes until reopened: {}",
                        start, end, failure.toString());
                fenced = refusal;
            }
            held.forEach(p -> p.fail(refusal));
        });
    }

    private boolean writeStaging(final List<PendingAppend> batch, final int from, final int to, final long offset) {
        if (staging.position() == 0) {
            return true;
        }
        staging.flip();
        try {
            log.write(staging);
            return true;
        } catch (IOException e) {
            fail(batch, from, ioFailure(e));
            return false;
        } finally {
            staging.clear();
        }
    }

    /** Seals and writes the batch at {@code batch[index]} at the write offset, rolling the segment first if needed. */
    private boolean writeUnit(final List<PendingAppend> batch, final int index, final long now) {
        final PendingAppend r = batch.get(index);
        final int length = r.record.remaining();
        try {
            final long offset = log.writeOffset();
            if (log.remainingInSegment(offset) < length + RecordLayout.BLANK_LENGTH
                    && log.remainingInSegment(offset) < log.segmentSize()) {
                log.roll();
            }
            log.ensureSegment(log.writeOffset() - log.writeOffset() % log.segmentSize());
        } catch (IOException e) {
            fail(batch, index, ioFailure(e));
            return false;
        }
        r.physicalOffset = log.writeOffset();
        r.queueOffset = queueOffsets.reserve(r.topic, r.queueId, r.members.length);
        r.assigned = true;
        r.storeTimestamp = now;
        final int base = r.record.position();
        for (int k = 0; k < r.members.length; k++) {
            RecordCodec.seal(r.record.duplicate().position(base + r.members[k]), r.queueId, r.queueOffset + k,
                    r.physicalOffset + r.members[k], now, 0);
        }
        try {
            log.writeUnit(r.record.duplicate());
            return true;
        } catch (IOException e) {
            fail(batch, index, ioFailure(e));
            return false;
        }
    }

    private boolean writeDirect(final List<PendingAppend> batch, final int index, final ByteBuffer record) {
        if (staging.position() > 0) {
            throw new IllegalStateException("staging must be empty before a direct write");
        }
        try {
            log.write(record.duplicate());
            return true;
        } catch (IOException e) {
            fail(batch, index, ioFailure(e));
            return false;
        }
    }

    /** Fails requests {@code from..end} of the batch and gives back their queue offsets. */
    private void fail(final List<PendingAppend> batch, final int from, final StoreException failure) {
        for (int i = batch.size() - 1; i >= from; i--) {
            final PendingAppend r = batch.get(i);
            if (r.future == null) {
                continue;
            }
            if (r.assigned) {
                queueOffsets.rollback(r.topic, r.queueId, r.queueOffset);
            }
            r.future.completeExceptionally(failure);
        }
        // Records before the failed chunk were written: hand them on as usual.
        if (from > 0) {
            handOn(batch, 0, from, batchStart);
        }
    }

    static StoreException ioFailure(final IOException e) {
        final String message = String.valueOf(e.getMessage());
        if (message.contains("No space left") || message.contains("Disk quota")) {
            return new StoreException(StoreError.DISK_FULL, "disk full: the message was not stored", e);
        }
        return new StoreException(StoreError.IO_ERROR, "write failed: " + message, e);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        LockSupport.unpark(thread);
        thread.join(10_000);
    }
}
