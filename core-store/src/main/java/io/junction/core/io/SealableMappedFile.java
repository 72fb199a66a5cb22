package io.junction.core.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file of derived state (a consume-queue file, an index file) that is memory-mapped while it is being filled and
 * unmapped once it is full ({@link #seal}): from then on it is read through positional channel reads, so the files of
 * old data take no resident memory however many there are.
 *
 * <p>Threads: one writer fills the file through {@link #writable()} and is the only thread that seals it, so its own
 * writes never race with the unmapping; every other use (reads, {@link #force}) holds the map for its duration, and
 * sealing unmaps only when none does (the same count as {@link MappedRegion}). After sealing, writes (recovery cutting
 * entries past a truncated log) go through the channel.
 *
 * <p>No channel stays open: a store has a file per queue and per few million entries, and file descriptors are a
 * bounded resource too. A sealed file is opened for each read; such reads are of old data (a consumer catching up, a
 * lookup by key), where an open costs little against the read.
 */
public final class SealableMappedFile implements AutoCloseable {
    private static final int UNMAPPED = -1;

    private final Path path;
    private final MappedByteBuffer map;
    private final AtomicInteger users = new AtomicInteger();
    private volatile boolean sealed;

    private SealableMappedFile(final Path path, final MappedByteBuffer map) {
        this.path = path;
        this.map = map;
        if (map == null) {
            users.set(UNMAPPED);
            sealed = true;
        }
    }

    /**
     * Opens {@code path}, creating a sparse file of {@code size} bytes when it is empty; mapped unless
     * {@code sealed}.
     *
     * @throws IOException when the file has another size
     */
    public static SealableMappedFile open(final Path path, final long size, final boolean sealed)
            throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            if (channel.size() == 0) {
                channel.write(ByteBuffer.allocate(1), size - 1);
            } else if (channel.size() != size) {
                throw new IOException(path + ": size " + channel.size() + ", expected " + size);
            }
            return new SealableMappedFile(path, sealed ? null : channel.map(FileChannel.MapMode.READ_WRITE, 0, size));
        }
    }

    public Path path() {
        return path;
    }

    public boolean sealed() {
        return sealed;
    }

    /** The map, for the writer thread only (see the class comment); null once sealed. */
    public MappedByteBuffer writable() {
        return sealed ? null : map;
    }

    /** A heap copy of {@code length} bytes at {@code position}. */
    public ByteBuffer copy(final int position, final int length) {
        final ByteBuffer copy = ByteBuffer.allocate(length);
        if (acquire()) {
            try {
                copy.put(map.duplicate().limit(position + length).position(position));
            } finally {
                release();
            }
            return copy.flip();
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            while (copy.hasRemaining()) {
                if (channel.read(copy, position + (long) copy.position()) < 0) {
                    throw new IOException(path + ": ends before " + (position + length));
                }
            }
        } catch (NoSuchFileException e) {
            return ByteBuffer.allocate(0); // deleted meanwhile (retention): nothing there any more
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": cannot read " + length + " bytes at " + position, e);
        }
        return copy.flip();
    }

    public int getInt(final int position) {
        final ByteBuffer b = copy(position, Integer.BYTES);
        return b.remaining() == Integer.BYTES ? b.getInt(0) : 0;
    }

    public long getLong(final int position) {
        final ByteBuffer b = copy(position, Long.BYTES);
        return b.remaining() == Long.BYTES ? b.getLong(0) : 0;
    }

    /**
     * Writes {@code bytes} at {@code position}: into the map while there is one (writer thread), else durably through
     * a channel.
     */
    public void write(final int position, final ByteBuffer bytes) throws IOException {
        final MappedByteBuffer m = writable();
        if (m != null) {
            m.put(position, bytes, bytes.position(), bytes.remaining());
            return;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            final ByteBuffer rest = bytes.duplicate();
            long at = position;
            while (rest.hasRemaining()) {
                at += channel.write(rest, at);
            }
            channel.force(false);
        }
    }

    /** Makes everything written through the map durable (channel writes already are). */
    public void force() {
        if (acquire()) {
            try {
                map.force();
            } finally {
                release();
            }
        }
    }

    /** Forces and unmaps (writer thread): from now on reads and writes go through a channel. */
    public void seal() {
        if (sealed) {
            return;
        }
        force();
        sealed = true;
        if (users.get() == 0) {
            unmapIfUnused();
        }
    }

    private boolean acquire() {
        for (;;) {
            final int n = users.get();
            if (n == UNMAPPED) {
                return false;
            }
            if (users.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private void release() {
        if (users.decrementAndGet() == 0 && sealed) {
            unmapIfUnused();
        }
    }

    private void unmapIfUnused() {
        if (users.compareAndSet(0, UNMAPPED)) {
            Unmapper.unmap(map);
        }
    }

    /** Unmaps, now or when the last reader is done (the writer has stopped). */
    @Override
    public void close() {
        sealed = true;
        if (users.get() == 0) {
            unmapIfUnused();
        }
    }
}
