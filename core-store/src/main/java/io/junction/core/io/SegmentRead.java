package io.junction.core.io;

import java.nio.ByteBuffer;

/**
 * Bytes of a segment lent to a reader: index {@code i} of {@link #buffer()} is position {@link #start()} {@code + i} of
 * the segment. The buffer may be a memory map that is unmapped once the read is closed, and touching an unmapped page
 * crashes the JVM: nothing read through it (a slice, a duplicate) may be used after {@link #close()}. Whatever must
 * outlive the read is copied out first.
 */
public interface SegmentRead extends AutoCloseable {

    /** Read-only bytes from {@link #start()}; its limit is the end of what this read covers. */
    ByteBuffer buffer();

    /** Segment position of the buffer's index 0. */
    int start();

    /** Whether {@code [position, position + length)} of the segment lies in this read. */
    default boolean covers(final int position, final int length) {
        return position >= start() && (long) position + length <= (long) start() + buffer().limit();
    }

    /** Gives the bytes back; the buffer must not be used afterwards. */
    @Override
    void close();
}
