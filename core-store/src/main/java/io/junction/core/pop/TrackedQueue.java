package io.junction.core.pop;

import java.util.Map;
import java.util.TreeMap;

/**
 * One queue of a FIFO group: which messages past the committed base are in flight or done, and how often each was
 * delivered. A message group's next message is handed out only once the previous one is done (acked, filtered out
 * or dead-lettered), so a pop scans from the base and skips every group with an earlier message not done.
 * Guarded by the queue's lock.
 */
final class FifoQueue {
    private static final class Slot {
        boolean inFlight;
        boolean done;
        int deliveries;
    }

    private long base;
    private final TreeMap<Long, Slot> slots = new TreeMap<>();

    FifoQueue(final long base) {
        this.base = base;
    }

    /** Everything below is done. */
    long base() {
        return base;
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

    /** The delivery ended without an ack: available again, one more delivery counted. */
    void release(final long offset) {
        final Slot s = slots.get(offset);
        if (s != null && s.inFlight) {
            s.inFlight = false;
            s.deliveries++;
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
        slots.clear();
    }
}
