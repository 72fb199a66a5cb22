package io.junction.core.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bound on how much of the log is memory-mapped at once, and so on the file-backed pages the broker keeps resident:
 * segments are read through fixed-size regions mapped on demand, at most {@link #maxRegions()} of them across all the
 * segments that share this window, and the least recently read region is unmapped to make room for another. The
 * regions being written and read at the log's tail are the most recently used, so they stay; a consumer catching up
 * on old data maps the regions it reads, one after the other, and the window forgets them behind it.
 *
 * <p>Each region maps {@link #overlap()} bytes past its end as well, so a record that starts in a region can be read
 * from it whole unless it is longer than the overlap; a read that still crosses the end gets bytes of its own
 * ({@link MappedSegmentFile#read}).
 *
 * <p>A region still being read when it is evicted is unmapped when its last read closes ({@link MappedRegion}), so for
 * a moment more regions than the bound can be mapped: at most one more per concurrent read.
 */
public final class MappedWindow {
    /** Default size of the window in bytes ({@code store.mapped-window}). */
    public static final long DEFAULT_SIZE = 128L << 20;
    private static final int MIN_REGION = 64 * 1024;
    private static final int MAX_REGION = 8 << 20;
    private static final int MAX_OVERLAP = 256 * 1024;

    private final int regionSize;
    private final int overlap;
    private final int maxRegions;
    /** Regions in the window (mapped and not retired), guarded by this. */
    private final List<MappedRegion> regions = new ArrayList<>();
    private final AtomicInteger mapped = new AtomicInteger();

    /**
     * A window of {@code maxRegions} regions of {@code regionSize} bytes each (tests choose small ones).
     *
     * @throws IllegalArgumentException when the region is below 4 KiB or fewer than two regions are allowed
     */
    public MappedWindow(final int regionSize, final int maxRegions) {
        if (regionSize < 4096 || maxRegions < 2) {
            throw new IllegalArgumentException("a mapped window needs regions of at least 4 KiB and at least two of "
                    + "them (got " + maxRegions + " of " + regionSize + " bytes)");
        }
        this.regionSize = regionSize;
        this.overlap = Math.min(MAX_OVERLAP, regionSize / 4);
        this.maxRegions = maxRegions;
    }

    /** A window of about {@code bytes}: sixteen regions of 64 KiB to 8 MiB, more regions of 8 MiB past 128 MiB. */
    public static MappedWindow ofSize(final long bytes) {
        final long region = Math.max(MIN_REGION, Math.min(MAX_REGION, bytes / 16)) & ~4095L;
        return new MappedWindow((int) region, (int) Math.max(2, Math.min(Integer.MAX_VALUE, bytes / region)));
    }

    /** Opens segment files that read through this window. */
    public SegmentFileFactory segmentFiles() {
        return (file, baseOffset, capacity) -> MappedSegmentFile.open(file, baseOffset, capacity, this);
    }

    public int regionSize() {
        return regionSize;
    }

    public int overlap() {
        return overlap;
    }

    public int maxRegions() {
        return maxRegions;
    }

    /** Regions mapped now: those in the window, plus evicted ones whose last read has not closed yet. */
    public int mappedRegions() {
        return mapped.get();
    }

    /**
     * Maps region {@code index} of {@code segment} (unless another reader just did) and opens a read of it, first
     * unmapping the least recently used regions while the window is full. Null when the segment is closed.
     */
    synchronized SegmentRead map(final MappedSegmentFile segment, final int index) throws IOException {
        final MappedRegion present = segment.region(index);
        if (present != null) {
            final SegmentRead read = present.acquire();
            if (read != null) {
                return read;
            }
        }
        while (regions.size() >= maxRegions) {
            evict(leastRecentlyUsed());
        }
        final MappedRegion region = segment.mapRegion(index, this);
        if (region == null) {
            return null;
        }
        mapped.incrementAndGet();
        regions.add(region);
        segment.setRegion(index, region);
        return region.acquire();
    }

    /** Takes every region of a closing segment out of the window. */
    synchronized void retireAll(final MappedSegmentFile segment) {
        for (MappedRegion region : List.copyOf(regions)) {
            if (region.segment() == segment) {
                evict(region);
            }
        }
    }

    private MappedRegion leastRecentlyUsed() {
        MappedRegion oldest = regions.get(0);
        for (MappedRegion region : regions) {
            if (region.lastUse - oldest.lastUse < 0) {
                oldest = region;
            }
        }
        return oldest;
    }

    private void evict(final MappedRegion region) {
        regions.remove(region);
        region.segment().clearRegion(region.index(), region);
        region.retire();
    }

    /** Called once per region when its map is gone. */
    void unmapped() {
        mapped.decrementAndGet();
    }
}
