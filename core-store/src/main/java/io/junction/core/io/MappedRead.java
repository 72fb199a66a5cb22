package io.junction.core.io;

import java.nio.ByteBuffer;

/**
 * A read of mapped bytes: its buffer, and what gives the map back when the read closes (a region's count of open
 * reads, or unmapping a map made for this read alone). Closing it twice gives the map back once, so a caller's
 * {@code finally} after an explicit close cannot unmap pages another read still uses.
 */
final class MappedRead implements SegmentRead {
    private final ByteBuffer buffer;
    private final int start;
    private final Runnable giveBack;
    private boolean closed;

    MappedRead(final ByteBuffer buffer, final int start, final Runnable giveBack) {
        this.buffer = buffer;
        this.start = start;
        this.giveBack = giveBack;
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public int start() {
        return start;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            giveBack.run();
        }
    }
}
