package io.junction.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One fixed-size file below the commit log: positional writes, a durable force, and reads lent for a while.
 *
 * <p>The log never touches {@code java.nio.channels} itself, so a test can put a medium underneath that fails writes
 * or forces at chosen moments.
 */
public interface SegmentFile extends AutoCloseable {

    /** Log offset of the segment's first byte. */
    long baseOffset();

    /** Size of the segment in bytes. */
    int capacity();

    /**
     * Writes all remaining bytes of {@code source} at {@code position}.
     *
     * @throws IOException on any failure, including a full disk; nothing is known about the bytes then
     */
    void write(int position, ByteBuffer source) throws IOException;

    /** Makes everything written so far durable. A failure is fatal for the log (fail-stop). */
    void force() throws IOException;

    /**
     * Makes every byte from {@code position} to the end read as zero, durably, in a time that does not grow with the
     * bytes cleared (recovery cuts a torn tail this way, and a 1 GiB segment must not cost seconds).
     *
     * @throws IOException on any failure; the bytes past {@code position} are unknown then
     */
    void clearFrom(int position) throws IOException;

    /**
     * Lends the bytes {@code [position, position + length)} (and possibly more around them) to a reader until it closes
     * the read; bytes never written read as zero. Nothing read through it may be used after the close (see
     * {@link SegmentRead}).
     *
     * @return the read, or null when the segment is closed (deleted by retention after the caller found it)
     * @throws IllegalArgumentException when the range is not inside the segment
     * @throws java.io.UncheckedIOException when the bytes cannot be mapped or read
     */
    SegmentRead read(int position, int length);

    /**
     * Copies the bytes {@code [position, position + into.remaining())} into {@code into} (advancing its position), for
     * a reader that keeps them anyway: where a read ({@link #read}) would lend a memory map, a copy straight from the
     * file need not map, fault in and later unmap the pages it reads.
     *
     * @return false when the segment is closed (deleted by retention after the caller found it)
     * @throws IllegalArgumentException when the range is not inside the segment
     * @throws java.io.UncheckedIOException when the bytes cannot be read
     */
    default boolean copy(final int position, final ByteBuffer into) {
        final int length = into.remaining();
        try (SegmentRead read = read(position, length)) {
            if (read == null) {
                return false;
            }
            final int from = position - read.start();
            into.put(read.buffer().duplicate().limit(from + length).position(from));
            return true;
        }
    }

    @Override
    void close() throws IOException;

    /** Closes and removes the file. */
    void delete() throws IOException;
}
