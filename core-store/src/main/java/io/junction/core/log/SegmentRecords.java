package io.junction.core.log;

import io.junction.core.io.SegmentFile;
import io.junction.core.io.SegmentRead;
import io.junction.core.message.RecordLayout;
import java.nio.ByteBuffer;

/**
 * Records read through {@link SegmentRead}s, which may cover only part of a segment: a read is widened to the whole
 * record its size field claims, and a blank filler (whose size runs to the segment's end) is checked against the
 * segment's end instead of the read's.
 */
final class SegmentRecords {
    private SegmentRecords() {
    }

    /**
     * {@code read} when it covers the record at segment position {@code pos} (or the size there cannot be a record of
     * this segment), else a read that does, {@code read} being closed. Null when the segment is closed meanwhile.
     */
    static SegmentRead whole(final SegmentFile segment, final SegmentRead read, final int pos) {
        if (!read.covers(pos, RecordLayout.BLANK_LENGTH) || coversWhole(segment, read, pos)) {
            return read;
        }
        final int size = read.buffer().getInt(pos - read.start() + RecordLayout.TOTAL_SIZE_OFFSET);
        read.close();
        return segment.read(pos, size);
    }

    /**
     * Whether {@code read} serves the record at segment position {@code pos} as {@link #whole} would: it covers the
     * record's head and either the whole record its size field claims or that size cannot be a record of this segment
     * (the check then rejects it from this read).
     */
    static boolean coversWhole(final SegmentFile segment, final SegmentRead read, final int pos) {
        if (!read.covers(pos, Math.min(RecordLayout.BLANK_LENGTH, segment.capacity() - pos))) {
            return false;
        }
        if (!read.covers(pos, RecordLayout.BLANK_LENGTH)) {
            return true; // a head shorter than a blank at the segment's very end: never a record
        }
        final ByteBuffer buffer = read.buffer();
        final int p = pos - read.start();
        final int size = buffer.getInt(p + RecordLayout.TOTAL_SIZE_OFFSET);
        return buffer.getInt(p + RecordLayout.MAGIC_OFFSET) == RecordLayout.BLANK_MAGIC || size <= 0
                || size > segment.capacity() - pos || read.covers(pos, size);
    }

    /** A read of the record at {@code pos}, whole; null when the segment is closed. */
    static SegmentRead open(final SegmentFile segment, final int pos) {
        final SegmentRead head = segment.read(pos, Math.min(RecordLayout.BLANK_LENGTH, segment.capacity() - pos));
        return head == null ? null : whole(segment, head, pos);
    }

    /**
     * {@link RecordCodec#check(ByteBuffer, int, long, boolean)} of the record at segment position {@code pos} of a read
     * that covers it whole ({@link #whole}).
     */
    static int check(final SegmentRead read, final int capacity, final int pos, final long offset,
                     final boolean verifyCrc) {
        final ByteBuffer buffer = read.buffer();
        final int p = pos - read.start();
        if (read.covers(pos, RecordLayout.BLANK_LENGTH)
                && buffer.getInt(p + RecordLayout.MAGIC_OFFSET) == RecordLayout.BLANK_MAGIC) {
            return buffer.getInt(p + RecordLayout.TOTAL_SIZE_OFFSET) == capacity - pos ? RecordCodec.BLANK
                    : RecordCodec.INVALID;
        }
        return RecordCodec.check(buffer, p, offset, verifyCrc);
    }
}
