package io.junction.core.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Writes through {@link FileChannel} and reads through regions mapped on demand within a {@link MappedWindow}, which
 * bounds how much of the log is mapped (and so resident) at once.
 *
 * <p>Why not write through the map as well: a write to a memory-mapped page of a sparse file on a full disk raises
 * SIGBUS, while a channel write fails with a plain {@code IOException} ("No space left on device") that turns into a
 * clear error for that send. Reads through a map cost no copy and no system call; Linux keeps both views coherent
 * through the one page cache.
 *
 * <p>Maps are unmapped explicitly (when the window evicts a region, or the segment closes), never while a
 * {@link SegmentRead} of them is open; see {@link MappedRegion}. A read that a region cannot cover (it crosses a
 * region's end by more than the window's overlap) gets bytes of its own: a copy when small, else a map of just that
 * range, unmapped when the read closes.
 */
public final class MappedSegmentFile implements SegmentFile {
    /** Factory for segments reading through one window of the default size, shared by the whole process. */
    public static final SegmentFileFactory FACTORY = MappedWindow.ofSize(MappedWindow.DEFAULT_SIZE).segmentFiles();
    /** Reads up to this long that no region covers are copied; longer ones get a map of their own. */
    private static final int MAX_COPIED_READ = 64 * 1024;

    private final Path file;
    private final long baseOffset;
    private final int capacity;
    private final FileChannel channel;
    private final MappedWindow window;
    private final AtomicReferenceArray<MappedRegion> regions;
    private volatile boolean closed;

    private MappedSegmentFile(final Path file, final long baseOffset, final int capacity, final FileChannel channel,
                              final MappedWindow window) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.capacity = capacity;
        this.channel = channel;
        this.window = window;
        this.regions = new AtomicReferenceArray<>((int) ((capacity + (long) window.regionSize() - 1)
                / window.regionSize()));
    }

    /** Opens {@code file}, creating a sparse file of {@code capacity} bytes when it is missing. */
    public static MappedSegmentFile open(final Path file, final long baseOffset, final int capacity,
                                         final MappedWindow window) throws IOException {
        final FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            // Shorter than a segment: new (size 0), or a crash hit between creating the file and sizing it, or
            // between the two steps of clearFrom. Either way nothing past its end was ever part of the log.
            if (channel.size() < capacity) {
                // Sparse: the extent is reserved in the name space only; blocks are allocated as data is written.
                channel.write(ByteBuffer.allocate(1), capacity - 1L);
            } else if (channel.size() != capacity) {
                throw new IOException(file + ": size " + channel.size() + " but segments are " + capacity
                        + " bytes (was the segment size changed?)");
            }
            return new MappedSegmentFile(file, baseOffset, capacity, channel, window);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public long baseOffset() {
        return baseOffset;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void write(final int position, final ByteBuffer source) throws IOException {
        if (position < 0 || position + (long) source.remaining() > capacity) {
            throw new IOException(file + ": write of " + source.remaining() + " bytes at " + position
                    + " outside the segment");
        }
        long at = position;
        while (source.hasRemaining()) {
            at += channel.write(source, at);
        }
    }

    @Override
    public void force() throws IOException {
        channel.force(false);
    }

    /**
     * Cuts the file at {@code position} and grows it back to its size: the kernel drops the cut pages (also from the
     * map, which reads zeros there again) and the regrown part is a hole. Two metadata changes instead of writing
     * zeros over the rest of the segment. A crash between them leaves a short file, which {@link #open} grows back.
     */
    @Override
    public void clearFrom(final int position) throws IOException {
        if (position < 0 || position > capacity) {
            throw new IOException(file + ": clear from " + position + " outside the segment");
        }
        channel.truncate(position);
        channel.write(ByteBuffer.allocate(1), capacity - 1L);
        channel.force(true);
    }

    @Override
    public SegmentRead read(final int position, final int length) {
        if (position < 0 || length < 0 || position + (long) length > capacity) {
            throw new IllegalArgumentException(file + ": read of " + length + " bytes at " + position
                    + " outside the segment");
        }
        if (length == 0) {
            return new CopiedRead(ByteBuffer.allocate(0).asReadOnlyBuffer(), position);
        }
        final int index = position / window.regionSize();
        if (position + (long) length <= regionEnd(index)) {
            final MappedRegion region = regions.get(index);
            final SegmentRead read = region == null ? null : region.acquire();
            if (read != null) {
                return read;
            }
            if (closed) {
                return null;
            }
            try {
                return window.map(this, index);
            } catch (IOException e) {
                throw new UncheckedIOException(file + ": cannot map region " + index, e);
            }
        }
        return readOwn(position, length);
    }

    /**
     * Reads the bytes with positional reads of the file, not through a region: measured on the reader threads
     * (benchmarks/README.md, Kafka), copying a consumer's records out of freshly mapped regions cost several times
     * what reading them from the page cache does, the mapping, faulting in and unmapping of the pages being most of
     * it.
     */
    @Override
    public boolean copy(final int position, final ByteBuffer into) {
        final int length = into.remaining();
        if (position < 0 || position + (long) length > capacity) {
            throw new IllegalArgumentException(file + ": copy of " + length + " bytes at " + position
                    + " outside the segment");
        }
        if (closed) {
            return false;
        }
        try {
            long at = position;
            while (into.hasRemaining()) {
                final int n = channel.read(into, at);
                if (n < 0) {
                    throw new IOException(file + ": ends before " + (position + (long) length));
                }
                at += n;
            }
            return true;
        } catch (ClosedChannelException e) {
            return closedBy(e, position, length, false);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read " + length + " bytes at " + position, e);
        }
    }

    /** The end (exclusive) of what region {@code index} maps: its share of the segment plus the overlap. */
    private long regionEnd(final int index) {
        return Math.min(capacity, (long) (index + 1) * window.regionSize() + window.overlap());
    }

    /** Bytes of its own for a read no region covers; null when the segment is closed. */
    private SegmentRead readOwn(final int position, final int length) {
        try {
            if (length <= MAX_COPIED_READ) {
                final ByteBuffer copy = ByteBuffer.allocate(length);
                while (copy.hasRemaining()) {
                    if (channel.read(copy, position + (long) copy.position()) < 0) {
                        throw new IOException(file + ": ends before " + (position + length));
                    }
                }
                return new CopiedRead(copy.flip().asReadOnlyBuffer(), position);
            }
            // A long read no region covers: a map of just its range, unmapped when the read closes.
            final MappedByteBuffer own = channel.map(FileChannel.MapMode.READ_ONLY, position, length);
            return new MappedRead(own.asReadOnlyBuffer(), position, () -> Unmapper.unmap(own));
        } catch (ClosedChannelException e) {
            return closedBy(e, position, length, null);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read " + length + " bytes at " + position, e);
        }
    }

    MappedRegion region(final int index) {
        return regions.get(index);
    }

    void setRegion(final int index, final MappedRegion region) {
        regions.set(index, region);
    }

    void clearRegion(final int index, final MappedRegion region) {
        regions.compareAndSet(index, region, null);
    }

    /** Maps region {@code index} (the window's monitor is held); null when the segment is closed. */
    MappedRegion mapRegion(final int index, final MappedWindow owner) throws IOException {
        if (closed) {
            return null;
        }
        final int start = index * owner.regionSize();
        try {
            final MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, start,
                    regionEnd(index) - start);
            return new MappedRegion(this, index, start, map, owner);
        } catch (ClosedChannelException e) {
            return null;
        }
    }

    /**
     * A read that met a closed channel: the segment's answer when {@link #close} closed it (deleted by retention),
     * else a failure. The channel closes by itself when a thread is interrupted in a read; calling that "deleted"
     * would make a reader skip records that are still there.
     */
    private <T> T closedBy(final ClosedChannelException e, final int position, final int length, final T whenClosed) {
        if (closed) {
            return whenClosed;
        }
        throw new UncheckedIOException(file + ": channel closed under a read of " + length + " bytes at " + position,
                e);
    }

    /** Closes the channel; regions are unmapped now, or as their open reads close. */
    @Override
    public void close() throws IOException {
        closed = true;
        window.retireAll(this);
        channel.close();
    }

    @Override
    public void delete() throws IOException {
        close();
        Files.deleteIfExists(file);
    }

    @Override
    public String toString() {
        return file.toString();
    }

    /** A small read no region covers: a copy, nothing to give back. */
    private record CopiedRead(ByteBuffer buffer, int start) implements SegmentRead {
        @Override
        public void close() {
        }
    }
}
