package io.junction.broker.msgtrace;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The bounded hand-over between the threads that trace messages and the one that writes the records: offering never
 * blocks (a full queue drops the record and counts it), taking a batch waits on the writer's thread only.
 *
 * <p>Offering takes no lock and wakes the writer only when it sleeps waiting for a batch's first record: event loops
 * and the store's appender offer a record for nearly every traced event, and a lock shared with the writer (or a
 * wake-up per record) cost them system calls and context switches that were dearer than the record itself.
 */
final class TraceRecordQueue {

    /** Longest sleep while lingering: how soon a filling batch is noticed. */
    private static final long LINGER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Queue<TracePacker.Entry> queue = new ConcurrentLinkedQueue<>();
    /** Records queued: what bounds the queue (a linked queue's own size is a walk). */
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;
    /** The writer while it sleeps waiting for a first record; whoever offers next wakes it. */
    private final AtomicReference<Thread> sleeper = new AtomicReference<>();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    TraceRecordQueue(final int capacity) {
        this.capacity = capacity;
    }

    /** Queues {@code e}, or drops and counts it when the queue is full or closed; false when dropped. */
    boolean offer(final TracePacker.Entry e) {
        if (closed || size.incrementAndGet() > capacity) {
            if (!closed) {
                size.decrementAndGet();
            }
            dropped.incrementAndGet();
            return false;
        }
        queue.offer(e);
        final Thread writer = sleeper.get();
        if (writer != null && sleeper.compareAndSet(writer, null)) {
            LockSupport.unpark(writer);
        }
        return true;
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
     *
     * <p>While lingering the writer sleeps in slices of at most {@link #LINGER_SLICE_NANOS} and is not woken by the
     * records that arrive meanwhile: only the first record of a batch wakes it.
     */
    boolean take(final List<TracePacker.Entry> batch, final int max, final long firstWaitMillis,
                 final long lingerNanos) throws InterruptedException {
        final TracePacker.Entry first = awaitFirst(TimeUnit.MILLISECONDS.toNanos(firstWaitMillis));
        if (first == null) {
            return false;
        }
        batch.add(first);
        final long deadline = System.nanoTime() + lingerNanos;
        while (true) {
            TracePacker.Entry next;
            while (batch.size() < max && (next = poll()) != null) {
                batch.add(next);
            }
            final long left = deadline - System.nanoTime();
            if (batch.size() >= max || left <= 0 || closed) {
                return true; // full, lingered long enough, or the writer is stopping
            }
            LockSupport.parkNanos(this, Math.min(left, LINGER_SLICE_NANOS));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private TracePacker.Entry awaitFirst(final long waitNanos) throws InterruptedException {
        final long deadline = System.nanoTime() + waitNanos;
        TracePacker.Entry first;
        while ((first = poll()) == null) {
            final long left = deadline - System.nanoTime();
            if (left <= 0 || closed) {
                return null;
            }
            sleeper.set(Thread.currentThread());
            // Checked again after saying it sleeps: a record offered in between would not have woken it.
            if (queue.isEmpty()) {
                LockSupport.parkNanos(this, left);
            }
            sleeper.set(null);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return first;
    }

    private TracePacker.Entry poll() {
        final TracePacker.Entry e = queue.poll();
        if (e != null) {
            size.decrementAndGet();
        }
        return e;
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
        int n = 0;
        while (poll() != null) {
            n++;
        }
        dropped.addAndGet(n);
    }
}
