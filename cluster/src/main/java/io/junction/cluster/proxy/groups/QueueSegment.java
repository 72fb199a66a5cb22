package io.junction.cluster.proxy.groups;

/**
 * One stretch of a logical queue: the logical offsets from {@code logicalStart} (up to {@code sealedEnd}, or without
 * end while open) live in {@code physicalQueue} of store group {@code group}, where logical offset
 * {@code logicalStart} is physical offset {@code physicalStart}. Offsets map one to one inside a segment.
 *
 * @param sealedEnd the first logical offset past the segment once sealed, {@link #OPEN} while it takes writes
 */
public record QueueSegment(String group, int physicalQueue, long logicalStart, long physicalStart, long sealedEnd) {
    public static final long OPEN = -1;

    /** The segment a queue starts with: queue {@code queue} of {@code group}, offsets as they are. */
    public static QueueSegment fresh(final String group, final int queue) {
        return new QueueSegment(group, queue, 0, 0, OPEN);
    }

    public boolean open() {
        return sealedEnd == OPEN;
    }

    /** The physical offset of a logical one (which may lie outside the segment: callers check). */
    public long toPhysical(final long logical) {
        return physicalStart + (logical - logicalStart);
    }

    public long toLogical(final long physical) {
        return logicalStart + (physical - physicalStart);
    }

    /** The first physical offset past a sealed segment, {@link Long#MAX_VALUE} while open. */
    public long physicalEnd() {
        return open() ? Long.MAX_VALUE : toPhysical(sealedEnd);
    }

    /** Whether a physical offset of its queue belongs to this segment. */
    public boolean holdsPhysical(final long physical) {
        return physical >= physicalStart && physical < physicalEnd();
    }

    /** Whether logical and physical offsets and queue ids are the same: nothing to translate. */
    public boolean identity(final int logicalQueue) {
        return physicalQueue == logicalQueue && logicalStart == physicalStart;
    }
}
