package io.junction.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Parked reads waiting for a queue to get new entries. A waiter runs exactly once: when its queue gets an entry, or
 * when its wait times out, whichever comes first — unless it is cancelled first (the reader went away), which drops it
 * at once instead of holding it, and what it references, until its time-out.
 */
final class LongPollWaiters {
    /** Identifies a queue. */
    record QueueKey(String topic, int queueId) {
    }

    /** A parked read. */
    interface Parked {
        /** Drops the read without running it; does nothing once it ran. */
        void cancel();
    }

    private final class Waiter implements Parked {
        final Runnable retry;
        final AtomicBoolean done = new AtomicBoolean();
        List<Queue<Waiter>> joined;
        volatile ScheduledFuture<?> timeout;

        Waiter(final Runnable retry) {
            this.retry = retry;
        }

        boolean isDone() {
            return done.get();
        }

        /** Claims the waiter for running; false when it ran or was cancelled already. */
        boolean claim() {
            if (done.compareAndSet(false, true)) {
                count.decrementAndGet();
                // Woken by an arrival: drop the time-out now. Left in the timer, every woken read kept its request,
                // its future and a timer entry for the whole wait (20 s for MQTT: a million of them with 100
                // subscribers of one topic). The time-out is set before the waiter joins any queue, so it is there.
                // Null when a time-out of 0–1 ms fired before park() stored it: then there is nothing to drop.
                final ScheduledFuture<?> t = timeout;
                if (t != null) {
                    t.cancel(false);
                }
                return true;
            }
            return false;
        }

        @Override
        public void cancel() {
            if (done.compareAndSet(false, true)) {
                count.decrementAndGet();
                joined.forEach(q -> q.remove(this));
                timeout.cancel(false);
            }
        }
    }

    /**
     * Most waiters one task of an arrival runs: a queue with 100 parked readers (fan-out) wakes them as a few tasks
     * (each a hand-over to a reading thread, and a thread wake-up) rather than as 100, and still on every reading
     * thread.
     */
    private static final int WAITERS_PER_TASK = 32;

    private final Map<QueueKey, Queue<Waiter>> waiters = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;
    private final Executor readers;
    private final int maxWaiters;
    private final AtomicInteger count = new AtomicInteger();

    /**
     * @param timer   runs the time-outs
     * @param readers runs the parked reads once woken
     */
    LongPollWaiters(final ScheduledExecutorService timer, final Executor readers, final int maxWaiters) {
        this.timer = timer;
        this.readers = readers;
        this.maxWaiters = maxWaiters;
    }

    /**
     * Parks {@code retry} until an entry arrives on the queue or {@code waitMillis} pass, then runs it on the reading
     * executor; null when too many reads are parked already (the caller answers at once instead).
     */
    Parked park(final String topic, final int queueId, final long waitMillis, final Runnable retry) {
        return parkAny(List.of(new QueueKey(topic, queueId)), waitMillis, retry);
    }

    /**
     * Parks {@code retry} until an entry arrives on any of the queues or {@code waitMillis} pass; null when too many
     * reads are parked already.
     */
    Parked parkAny(final List<QueueKey> keys, final long waitMillis, final Runnable retry) {
        if (count.incrementAndGet() > maxWaiters) {
            count.decrementAndGet();
            return null;
        }
        final Waiter w = new Waiter(retry);
        // The queues are looked up before anything can run: a short wait's time-out may fire while the waiter is
        // still joining them, and it walked this list while it grew (a ConcurrentModificationException in the timer,
        // so the waiter never ran and its pop never answered).
        final List<Queue<Waiter>> joined = new ArrayList<>(keys.size());
        for (QueueKey key : keys) {
            joined.add(waiters.computeIfAbsent(key, k -> new ConcurrentLinkedQueue<>()));
        }
        w.joined = List.copyOf(joined);
        // The time-out is scheduled before the waiter joins a queue, so a cancel always finds it set.
        w.timeout = timer.schedule(() -> {
            w.joined.forEach(q -> q.remove(w));
            if (w.claim()) {
                readers.execute(w.retry);
            }
        }, waitMillis, TimeUnit.MILLISECONDS);
        for (Queue<Waiter> queue : w.joined) {
            queue.add(w);
        }
        if (w.isDone()) {
            // Woken while joining: its waker may have cleared the other queues before the last joins above.
            w.joined.forEach(q -> q.remove(w));
        }
        return w;
    }

    /** Wakes every read parked on the queue. */
    void arrived(final String topic, final int queueId) {
        if (waiters.isEmpty()) {
            return;
        }
        final Queue<Waiter> q = waiters.get(new QueueKey(topic, queueId));
        if (q != null) {
            wake(q);
        }
    }

    /** Wakes everything (shutdown). */
    void wakeAll() {
        waiters.values().forEach(this::wake);
    }

    private void wake(final Queue<Waiter> q) {
        Runnable[] batch = null;
        int n = 0;
        List<Queue<Waiter>> others = null;
        for (Waiter w; (w = q.poll()) != null; ) {
            if (!w.claim()) {
                continue;
            }
            if (w.joined.size() > 1) {
                others = otherQueues(w, q, others);
            }
            if (batch == null) {
                batch = new Runnable[WAITERS_PER_TASK];
            }
            batch[n++] = w.retry;
            if (n == WAITERS_PER_TASK) {
                run(batch, n);
                batch = null;
                n = 0;
            }
        }
        if (n > 0) {
            run(batch, n);
        }
        if (others != null) {
            // The woken reads leave the other queues they joined. Left there, they stayed until an arrival on each:
            // pops parked on every queue of a topic whose sends all went to some of its queues left one in each of
            // the others at every wake (136,000 after 50 s of four JMS consumers), without bound. One pass per queue,
            // as the pops of a topic all join the same queues.
            for (Queue<Waiter> other : others) {
                other.removeIf(Waiter::isDone);
            }
        }
    }

    /** Adds the queues {@code w} joined besides {@code wokenBy} to {@code others} (created when null), once each. */
    private static List<Queue<Waiter>> otherQueues(final Waiter w, final Queue<Waiter> wokenBy,
                                                   final List<Queue<Waiter>> others) {
        final List<Queue<Waiter>> out = others != null ? others : new ArrayList<>(w.joined.size());
        for (Queue<Waiter> j : w.joined) {
            if (j != wokenBy && !containsSame(out, j)) {
                out.add(j);
            }
        }
        return out;
    }

    private static boolean containsSame(final List<Queue<Waiter>> queues, final Queue<Waiter> q) {
        for (Queue<Waiter> each : queues) {
            if (each == q) {
                return true;
            }
        }
        return false;
    }

    private void run(final Runnable[] batch, final int n) {
        if (n == 1) {
            readers.execute(batch[0]);
            return;
        }
        readers.execute(() -> {
            for (int i = 0; i < n; i++) {
                try {
                    batch[i].run();
                } catch (RuntimeException e) {
                    // One read's failure must not strand the others of its batch; each completes its own result.
                    Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
                }
            }
        });
    }

    int parked() {
        return count.get();
    }

    /** Reads parked on one queue (tests). */
    int parkedOn(final String topic, final int queueId) {
        final Queue<Waiter> q = waiters.get(new QueueKey(topic, queueId));
        return q == null ? 0 : q.size();
    }
}
