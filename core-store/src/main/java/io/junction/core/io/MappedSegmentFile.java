package io.junction.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes through {@link FileChannel} and reads through a read-only memory map of the whole file.
 *
 * <p>Why not write through the map as well: a write to a memory-mapped page of a sparse file on a full disk raises
 * SIGBUS, while a channel write fails with a plain {@code IOException} ("No space left on device") that turns into a
 * clear error for that send. Reads through the map cost no copy and no system call; Linux keeps both views coherent
 * through the one page cache.
 *
 * <p>The map is never unmapped explicitly: a record view handed to a reader stays valid until the reader drops it,
 * even after the segment is deleted; the garbage collector unmaps it then.
 */
public final class MappedSegmentFile implements SegmentFile {
    /** Factory for this kind of segment. */
    public static final SegmentFileFactory FACTORY = MappedSegmentFile::open;

    private final Path file;
    private final long baseOffset;
    private final int capacity;
    private final FileChannel channel;
    private final MappedByteBuffer map;

    private MappedSegmentFile(final Path file, final long baseOffset, final int capacity, final FileChannel channel,
                              final MappedByteBuffer map) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.capacity = capacity;
        this.channel = channel;
        this.map = map;
    }

    /** Opens {@code file}, creating a sparse file of {@code capacity} bytes when it is missing. */
    public static MappedSegmentFile open(final Path file, final long baseOffset, final int capacity)
            throws IOException {
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
            final MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, 0, capacity);
            return new MappedSegmentFile(file, baseOffset, capacity, channel, map);
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
    public ByteBuffer view() {
        return map.duplicate();
    }

    @Override
    public void close() throws IOException {
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
}
