package io.junction.core.io;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One mapped region of a segment file, lent to readers and unmapped only when none holds it.
 *
 * <p>The count of open reads decides when the map may go: {@link #retire} (the window evicts the region, or its
 * segment closes) unmaps it at once when no read is open, else the last read's {@link SegmentRead#close} does. Once the
 * count is {@link #UNMAPPED} an {@link #acquire} fails and the reader maps the region again, so no read can ever see
 * an unmapped page. Both sides move the one atomic count, so exactly one of them unmaps.
 */
final class MappedRegion {
    private static final int UNMAPPED = -1;

    private final MappedSegmentFile segment;
    private final int index;
    private final int start;
    private final MappedByteBuffer map;
    private final ByteBuffer readOnly;
    private final MappedWindow window;
    private final AtomicInteger reads = new AtomicInteger();
    /** What each read runs when it closes (one object for all of them). */
    private final Runnable release = this::release;
    private volatile boolean retired;
    /** When a read last started here: the window evicts the least recently used region. */
    volatile long lastUse;

    MappedRegion(final MappedSegmentFile segment, final int index, final int start, final MappedByteBuffer map,
                 final MappedWindow window) {
        this.segment = segment;
        this.index = index;
        this.start = start;
        this.map = map;
        this.readOnly = map.asReadOnlyBuffer();
        this.window = window;
        this.lastUse = System.nanoTime();
    }

    MappedSegmentFile segment() {
        return segment;
    }

    int index() {
        return index;
    }

    /** Opens a read, or returns null when the region is already unmapped (the caller maps it again). */
    SegmentRead acquire() {
        for (;;) {
            final int n = reads.get();
            if (n == UNMAPPED) {
                return null;
            }
            if (reads.compareAndSet(n, n + 1)) {
                lastUse = System.nanoTime();
                return new MappedRead(readOnly.duplicate(), start, release);
            }
        }
    }

    /** Takes the region out of use: unmapped now, or when its last open read closes. */
    void retire() {
        retired = true;
        if (reads.get() == 0) {
            unmapIfUnused();
        }
    }

    private void release() {
        if (reads.decrementAndGet() == 0 && retired) {
            unmapIfUnused();
        }
    }

    private void unmapIfUnused() {
        if (reads.compareAndSet(0, UNMAPPED)) {
            Unmapper.unmap(map);
            window.unmapped();
        }
    }
}
