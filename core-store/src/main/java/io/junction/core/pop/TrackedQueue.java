package io.junction.core.pop;

import java.util.Map;
import java.util.TreeMap;

/**
 * One queue of a group whose messages are tracked one by one past the committed base: which are in flight, which are
 * done, how often each was delivered. FIFO groups and in-place groups
 * ({@link io.junction.core.meta.GroupConfig#inPlace}) keep their queues this way, so a message given back is delivered
 * again in its place rather than through the retry topic.
 *
 * <p>FIFO pops scan from the base (a message group's next message waits until the previous one is done). In-place
 * pops also remember how far they have looked ({@link #frontier}): below it, every offset past the base has a slot,
 * so the messages available again (given back, or passed over by another pop's filter) are found among the slots
 * without reading the ones in flight. A slot remembers the last two filters that passed its message over, so a
 * consumer whose selector rejected a message does not read it again on every pop (a filter's verdict on a stored
 * message does not change).
 *
 * <p>Guarded by the queue's lock.
 */
final class TrackedQueue {
    private static final class Slot {
        boolean inFlight;
        boolean done;
        int deliveries;
        /**
         * The checkpoint whose records (the checkpoint, then its release or give-back) carry {@link #deliveries}
         * while the message waits in place; closed, it must still be replayed after a restart (see
         * {@link #holdRevivePositions}).
         */
        OpenCheckpoint countedIn;
        /** The last two filters (by identity) that did not select the message. */
        Object passedBy;
        Object passedByBefore;
    }

    private long base;
    private long frontier;
    private final TreeMap<Long, Slot> slots = new TreeMap<>();

    TrackedQueue(final long base) {
        this.base = base;
        this.frontier = base;
    }

    /** Everything below is done. */
    long base() {
        return base;
    }

    /** In-place pops have looked at every offset below this one. */
    long frontier() {
        return Math.max(frontier, base);
    }

    /** An in-place pop looked at everything below {@code offset}. */
    void lookedUpTo(final long offset) {
        frontier = Math.max(frontier, offset);
    }

    boolean isDone(final long offset) {
        if (offset < base) {
            return true;
        }
        final Slot s = slots.get(offset);
        return s != null && s.done;
    }

    boolean isInFlight(final long offset) {
        final Slot s = slots.get(offset);
        return s != null && s.inFlight;
    }

    /** Neither done nor in flight: a pop may take it. */
    boolean isAvailable(final long offset) {
        return offset >= base && !isDone(offset) && !isInFlight(offset);
    }

    /** Deliveries so far (the next delivery's reconsume count). */
    int deliveries(final long offset) {
        final Slot s = slots.get(offset);
        return s == null ? 0 : s.deliveries;
    }

    void markInFlight(final long offset, final int deliveries) {
        if (offset < base) {
            return;
        }
        final Slot s = slots.computeIfAbsent(offset, o -> new Slot());
        s.inFlight = true;
        s.deliveries = Math.max(s.deliveries, deliveries);
    }

    /**
     * An in-place pop looked at a message and left it for others: {@code filter} (compared by identity) did not
     * select it, or the message is in flight or done.
     */
    void passOver(final long offset, final Object filter) {
        if (offset < base) {
            return;
        }
        final Slot s = slots.computeIfAbsent(offset, o -> new Slot());
        if (filter != null && s.passedBy != filter) {
            s.passedByBefore = s.passedBy;
            s.passedBy = filter;
        }
    }

    /** Whether {@code filter} (by identity) already found that it does not select the message. */
    boolean passedOverBy(final long offset, final Object filter) {
        final Slot s = slots.get(offset);
        return s != null && (s.passedBy == filter || s.passedByBefore == filter);
    }

    /** The oldest offset at or after {@code from} below the frontier that a pop may take, or -1. */
    long nextAvailable(final long from) {
        for (Map.Entry<Long, Slot> e : slots.subMap(Math.max(from, base), frontier()).entrySet()) {
            if (!e.getValue().inFlight && !e.getValue().done) {
                return e.getKey();
            }
        }
        return -1;
    }

    /**
     * The delivery ended without an ack: available again, with one more delivery counted, or, when the consumer gave
     * it back unconsumed ({@code counted} false), with its count unchanged.
     */
    void release(final long offset, final boolean counted) {
        release(offset, counted, null);
    }

    /**
     * As {@link #release(long, boolean)}, the release (or give-back) record of {@code countedIn} saying so: the
     * message's count is then durable only through that checkpoint's records, until a new checkpoint takes it.
     * Without one (a pop whose checkpoint could not be stored) the records that carried the count before still do.
     */
    void release(final long offset, final boolean counted, final OpenCheckpoint countedIn) {
        final Slot s = slots.get(offset);
        if (s != null && s.inFlight) {
            s.inFlight = false;
            if (counted) {
                s.deliveries++;
            }
            if (countedIn != null) {
                s.countedIn = countedIn;
            }
        }
    }

    /**
     * Keeps each revive queue's replay position ({@code oldest}, by revive queue) at or below the checkpoint whose
     * records carry the count of a message waiting in place with deliveries counted. No open checkpoint holds that
     * position any more, and a replay starting past it would bring the message back with its count at 0: a poison
     * message would then never reach the dead-letter topic. A message in flight or done needs nothing kept (its
     * open checkpoint carries the count, or it will not come back).
     */
    void holdRevivePositions(final long[] oldest) {
        for (Slot s : slots.values()) {
            if (s.countedIn != null && !s.inFlight && !s.done && s.deliveries > 0) {
                oldest[s.countedIn.reviveQueue] = Math.min(oldest[s.countedIn.reviveQueue], s.countedIn.reviveOffset);
            }
        }
    }

    /** Done for good; returns true when the base moved. */
    boolean markDone(final long offset) {
        if (offset < base) {
            return false;
        }
        slots.computeIfAbsent(offset, o -> new Slot()).done = true;
        final long before = base;
        while (true) {
            final Map.Entry<Long, Slot> first = slots.firstEntry();
            if (first == null || first.getKey() != base || !first.getValue().done) {
                break;
            }
            slots.pollFirstEntry();
            base++;
        }
        return base != before;
    }

    /** Moves the base (offsets were reset). */
    void reset(final long offset) {
        base = offset;
        frontier = offset;
        slots.clear();
    }
}
