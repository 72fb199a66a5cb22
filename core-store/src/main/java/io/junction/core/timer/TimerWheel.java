package io.junction.core.timer;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The pending timers in memory and the fire-once bookkeeping. Not thread safe: the {@link TimerService} guards it.
 *
 * <p>Two structures: a min-heap of pending timers ordered by (deliver time, timer-queue offset), and a window of
 * timer-queue offsets {@code [base, loadedUpTo)} with one "finished" bit each. A timer is finished once its
 * delivered copy is durable (or it was found delivered already, or its record is gone); the <em>watermark</em> is the
 * smallest unfinished offset, so every timer below it has fired for good and a restart reloads from it. Finishing
 * out of order (a long timer in front of short ones) holds the watermark back; that costs reloading, never a loss.
 */
final class TimerWheel {
    /** Compact the bit window once this many leading offsets are finished. */
    private static final int COMPACT_AT = 1 << 14;

    /**
     * One pending timer.
     *
     * @param deliverAt   when it is due (epoch ms, store clock)
     * @param queueOffset its record's offset in the timer queue
     * @param logOffset   its record's log offset
     * @param recovered   loaded at start from below the queue end: it may have fired before the restart
     */
    record Timer(long deliverAt, long queueOffset, long logOffset, boolean recovered) {
    }

    private final PriorityQueue<Timer> pending = new PriorityQueue<>(1024, (a, b) -> {
        final int c = Long.compare(a.deliverAt, b.deliverAt);
        return c != 0 ? c : Long.compare(a.queueOffset, b.queueOffset);
    });
    private long base;
    private long loadedUpTo;
    private BitSet finished = new BitSet();

    /** Starts the window at {@code offset} (the persisted watermark, or the timer queue's start). */
    TimerWheel(final long offset) {
        this.base = offset;
        this.loadedUpTo = offset;
    }

    /** Where loading continues. */
    long loadedUpTo() {
        return loadedUpTo;
    }

    /** Adds a timer loaded from the queue; offsets must come in increasing order. */
    void add(final Timer timer) {
        skipTo(timer.queueOffset());
        pending.add(timer);
        loadedUpTo = timer.queueOffset() + 1;
    }

    /** Marks {@code [loadedUpTo, offset)} as finished without timers (holes, unreadable entries). */
    void skipTo(final long offset) {
        if (offset < loadedUpTo) {
            throw new IllegalArgumentException("offset " + offset + " below loaded end " + loadedUpTo);
        }
        if (offset > loadedUpTo) {
            finished.set(index(loadedUpTo), index(offset));
            loadedUpTo = offset;
        }
    }

    /** Removes and returns up to {@code max} timers due at {@code now}, earliest first. */
    List<Timer> pollDue(final long now, final int max) {
        final List<Timer> due = new ArrayList<>();
        while (due.size() < max && !pending.isEmpty() && pending.peek().deliverAt() <= now) {
            due.add(pending.poll());
        }
        return due;
    }

    /** Puts a timer back (its delivery failed and will be retried at {@code at}); it stays unfinished. */
    void retry(final Timer timer, final long at) {
        pending.add(new Timer(at, timer.queueOffset(), timer.logOffset(), timer.recovered()));
    }

    /** The timer at {@code queueOffset} has fired for good. */
    void finish(final long queueOffset) {
        if (queueOffset >= base && queueOffset < loadedUpTo) {
            finished.set(index(queueOffset));
        }
    }

    /** The smallest timer-queue offset not finished (or the loaded end when all are). */
    long watermark() {
        final int first = finished.nextClearBit(0);
        final long mark = Math.min(base + first, loadedUpTo);
        if (first >= COMPACT_AT) {
            finished = finished.get(first, Math.max(first, index(loadedUpTo)));
            base += first;
        }
        return mark;
    }

    /** Timers waiting for their time. */
    int pendingCount() {
        return pending.size();
    }

    /** Deliver time of the earliest pending timer, or Long.MAX_VALUE. */
    long nextDue() {
        final Timer t = pending.peek();
        return t == null ? Long.MAX_VALUE : t.deliverAt();
    }

    private int index(final long offset) {
        final long i = offset - base;
        if (i < 0 || i > Integer.MAX_VALUE) {
            throw new IllegalStateException("timer window too wide: " + i);
        }
        return (int) i;
    }
}
