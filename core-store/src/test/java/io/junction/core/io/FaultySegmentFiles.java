package io.junction.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/** A segment medium over real files that fails writes or forces on demand (disk full, fsync errors). */
public final class FaultySegmentFiles implements SegmentFileFactory {
    public volatile boolean diskFull;
    public volatile boolean forceFails;

    @Override
    public SegmentFile open(final Path file, final long baseOffset, final int capacity) throws IOException {
        if (diskFull) {
            throw new IOException("No space left on device");
        }
        final SegmentFile real = MappedSegmentFile.FACTORY.open(file, baseOffset, capacity);
        return new SegmentFile() {
            @Override
            public long baseOffset() {
                return real.baseOffset();
            }

            @Override
            public int capacity() {
                return real.capacity();
            }

            @Override
            public void write(final int position, final ByteBuffer source) throws IOException {
                if (diskFull) {
                    // A short write first, as a real full disk may leave one.
                    final ByteBuffer part = source.duplicate();
                    part.limit(part.position() + part.remaining() / 2);
                    real.write(position, part);
                    throw new IOException("No space left on device");
                }
                real.write(position, source);
            }

            @Override
            public void force() throws IOException {
                if (forceFails) {
                    throw new IOException("Input/output error");
                }
                real.force();
            }

            @Override
            public void clearFrom(final int position) throws IOException {
                if (forceFails) {
                    throw new IOException("Input/output error");
                }
                real.clearFrom(position);
            }

            @Override
            public SegmentRead read(final int position, final int length) {
                return real.read(position, length);
            }

            @Override
            public boolean copy(final int position, final ByteBuffer into) {
                return real.copy(position, into);
            }

            @Override
            public void close() throws IOException {
                real.close();
            }

            @Override
            public void delete() throws IOException {
                real.delete();
            }
        };
    }
}
