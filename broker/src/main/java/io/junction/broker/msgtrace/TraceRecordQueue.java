package io.junction.broker.msgtrace;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded hand-over between the threads that trace messages and the one that writes the records: offering never
 * blocks (a full queue drops the record and counts it), taking a batch waits on the writer's thread only.
 */
final class TraceRecordQueue {

    /** Longest single wait while lingering, so that {@link #close} is noticed soon. */
    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final BlockingQueue<TracePacker.Entry> queue;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    TraceRecordQueue(final int capacity) {
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /** Queues {@code e}, or drops and counts it when the queue is full or closed; false when dropped. */
    boolean offer(final TracePacker.Entry e) {
        if (!closed && queue.offer(e)) {
            return true;
        }
        dropped.incrementAndGet();
        return false;
    }

    /** Counts {@code n} records lost after they left the queue (their trace message was refused, or never sent). */
    void dropped(final int n) {
        dropped.addAndGet(n);
    }

    long dropped() {
        return dropped.get();
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /**
     * Takes a batch into {@code batch}: waits up to {@code firstWaitMillis} for a first record, then adds what
     * arrives until {@code max} records are taken or {@code lingerNanos} have passed since the first. Returns false
     * when no record came.
     */
    boolean take(final List<TracePacker.Entry> batch, final int max, final long firstWaitMillis,
                 final long lingerNanos) throws InterruptedException {
        final TracePacker.Entry first = queue.poll(firstWaitMillis, TimeUnit.MILLISECONDS);
        if (first == null) {
            return false;
        }
        batch.add(first);
        final long deadline = System.nanoTime() + lingerNanos;
        while (batch.size() < max) {
            queue.drainTo(batch, max - batch.size());
            final long left = deadline - System.nanoTime();
            if (batch.size() >= max || left <= 0) {
                break;
            }
            if (closed) {
                break; // the writer is stopping: no more lingering
            }
            final TracePacker.Entry next = queue.poll(Math.min(left, MAX_WAIT_NANOS), TimeUnit.NANOSECONDS);
            if (next != null) {
                batch.add(next);
            }
        }
        return true;
    }

    /** Takes no more records; a {@link #take} lingering returns what it has. */
    void close() {
        closed = true;
    }

    boolean isClosed() {
        return closed;
    }

    /** Drops (and counts) what is still queued: the writer stopped. */
    void discard() {
        final int n = queue.size();
        queue.clear();
        dropped.addAndGet(n);
    }
}
