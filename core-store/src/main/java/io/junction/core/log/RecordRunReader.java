package io.junction.core.log;

import io.junction.core.io.SegmentFile;
import io.junction.core.io.SegmentRead;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Reads the records at a list of log offsets (the records a pull found in a queue), each checked as
 * {@link CommitLog#readRecord} checks one, but cheaper for the common case of records that lie next to each other: each
 * run of records the queue entries place next to each other is copied out of the segment file in one piece
 * ({@link SegmentFile#copy}) and checked in the copy, the records being read-only slices of it. The check is the one a
 * single read makes (structure and own offset always, the CRC for records of an earlier run); a record that fails it in
 * the copy is read and checked again alone, so what is served, skipped and reported as damage is exactly what single
 * reads would serve, skip and report.
 *
 * <p>Why a copy at all: a mapped view pins its region for as long as the caller keeps it (see
 * {@link io.junction.core.io.MappedWindow}), and a message read for a consumer lives until the consumer's front-end has
 * written it out. Why a run is capped at {@link #MAX_RUN_BYTES} (or one record, when larger): a message kept alone
 * (held by a POP consumer, remembered by the recent-records cache) keeps its whole run's copy alive.
 *
 * <p>One reader per call, on the calling thread; it keeps no state afterwards.
 */
final class RecordRunReader {
    /** Largest copy shared by several records. */
    static final int MAX_RUN_BYTES = 64 * 1024;

    private final List<SegmentFile> segments;
    private final int segmentSize;
    private final long writeOffset;
    private final long verifiedBelow;
    private final LogRecovery.DamageReport damage;
    private final ByteBuffer[] out;
    private final IntFunction<ByteBuffer> memory;
    private SegmentFile current;
    private SegmentRead read;

    /**
     * @param segments      the log's segments, oldest first
     * @param writeOffset   the end of the written log: nothing at or past it is served
     * @param verifiedBelow records before this offset come from an earlier run and get their CRC checked
     * @param out           where record {@code i} goes
     * @param memory        a buffer of {@code n} bytes (position 0, limit {@code n}) for a run of that many
     */
    RecordRunReader(final List<SegmentFile> segments, final int segmentSize, final long writeOffset,
                    final long verifiedBelow, final LogRecovery.DamageReport damage, final ByteBuffer[] out,
                    final IntFunction<ByteBuffer> memory) {
        this.segments = segments;
        this.segmentSize = segmentSize;
        this.writeOffset = writeOffset;
        this.verifiedBelow = verifiedBelow;
        this.damage = damage;
        this.out = out;
        this.memory = memory;
    }

    /**
     * Reads the records at {@code offsets[0..count)} into {@code out}: null where there is none; a negative offset is
     * skipped. {@code sizes} are what the queue entries say the records' sizes are: a run is what they say lies next to
     * each other.
     */
    void read(final long[] offsets, final int[] sizes, final int count) {
        try {
            int i = 0;
            while (i < count) {
                i = offsets[i] < 0 ? i + 1 : readRun(offsets, sizes, count, i);
            }
        } finally {
            if (read != null) {
                read.close();
            }
        }
    }

    /**
     * Reads the run of records starting with record {@code i}: copies the bytes the entries say are the run, in one
     * piece and in order, straight from the segment file ({@link SegmentFile#copy}: no region mapped for it), then
     * checks each record in the copy. A record whose check there disagrees with its entry is read again alone, as
     * {@link CommitLog#readRecord} reads one. Returns the index after the run.
     */
    private int readRun(final long[] offsets, final int[] sizes, final int count, final int i) {
        final int index = CommitLog.indexOf(offsets[i], segments, segmentSize);
        if (index < 0 || offsets[i] >= writeOffset) {
            out[i] = null;
            return i + 1;
        }
        final SegmentFile segment = segments.get(index);
        final long segmentEnd = segment.baseOffset() + segment.capacity();
        int end = i;
        int bytes = 0;
        while (end < count && offsets[end] == offsets[i] + bytes && sizes[end] > 0
                && offsets[end] + sizes[end] <= writeOffset && offsets[end] + sizes[end] <= segmentEnd
                && (end == i || bytes + sizes[end] <= MAX_RUN_BYTES)) {
            bytes += sizes[end];
            end++;
        }
        if (end == i) {
            readAlone(i, offsets[i]);
            return i + 1;
        }
        // Checked through a writable buffer: the CRC of a read-only heap buffer goes through a temporary array, 4 KiB
        // allocated per record.
        final ByteBuffer checked = memory.apply(bytes);
        if (!segment.copy((int) (offsets[i] - segment.baseOffset()), checked.duplicate())) {
            for (int k = i; k < end; k++) {
                out[k] = null; // the segment was deleted by retention since the pull found these entries
            }
            return end;
        }
        final ByteBuffer run = checked.asReadOnlyBuffer();
        for (int k = i; k < end; k++) {
            final int at = (int) (offsets[k] - offsets[i]);
            final int size = RecordCodec.check(checked, at, offsets[k], offsets[k] < verifiedBelow);
            if (size == sizes[k]) {
                out[k] = run.slice(at, size);
            } else {
                readAlone(k, offsets[k]);
            }
        }
        return end;
    }

    /**
     * The segment position of {@code offset}, with {@link #read} open on a read covering the record there, or -1 when
     * there is none (past the log's end, deleted by retention since the caller found it).
     */
    private int locate(final long offset) {
        final int index = CommitLog.indexOf(offset, segments, segmentSize);
        if (index < 0 || offset >= writeOffset) {
            return -1;
        }
        final SegmentFile segment = segments.get(index);
        final int pos = (int) (offset - segment.baseOffset());
        if (read == null || segment != current || !SegmentRecords.coversWhole(segment, read, pos)) {
            if (read != null) {
                read.close();
            }
            current = segment;
            read = SegmentRecords.open(segment, pos);
        }
        return read == null ? -1 : pos;
    }

    /** Checks and copies the record at {@code offset} on its own, on the mapped bytes, reporting damage. */
    private void readAlone(final int i, final long offset) {
        out[i] = null;
        final int pos = locate(offset);
        if (pos < 0) {
            return;
        }
        final int size = SegmentRecords.check(read, segmentSize, pos, offset, offset < verifiedBelow);
        if (size <= 0) {
            if (size == RecordCodec.INVALID) {
                damage.damaged(offset, -1);
            }
            return;
        }
        final byte[] copy = new byte[size];
        read.buffer().get(pos - read.start(), copy);
        out[i] = ByteBuffer.wrap(copy).asReadOnlyBuffer();
    }
}
