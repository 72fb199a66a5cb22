package io.junction.core.log;

import io.junction.core.io.SegmentFile;
import io.junction.core.io.SegmentRead;
import io.junction.core.message.RecordLayout;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Reads the records at a list of log offsets (the records a pull found in a queue), each checked as
 * {@link CommitLog#readRecord} checks one, but cheaper for the common case of records that lie next to each other: one
 * {@link SegmentRead} serves every record it covers (one region acquire instead of one per record), and each run of
 * adjacent records is copied out in one piece, the records being read-only slices of that copy.
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
    /** The records of the pending run: their indexes in {@link #out}, segment positions and sizes. */
    private final int[] runIndex;
    private final int[] runPos;
    private final int[] runSize;
    private int runCount;
    private int runEnd;
    private SegmentFile current;
    private SegmentRead read;

    /**
     * @param segments      the log's segments, oldest first
     * @param writeOffset   the end of the written log: nothing at or past it is served
     * @param verifiedBelow records before this offset come from an earlier run and get their CRC checked
     * @param out           where record {@code i} goes
     */
    RecordRunReader(final List<SegmentFile> segments, final int segmentSize, final long writeOffset,
                    final long verifiedBelow, final LogRecovery.DamageReport damage, final ByteBuffer[] out) {
        this.segments = segments;
        this.segmentSize = segmentSize;
        this.writeOffset = writeOffset;
        this.verifiedBelow = verifiedBelow;
        this.damage = damage;
        this.out = out;
        final int n = Math.min(out.length, MAX_RUN_BYTES / RecordLayout.BLANK_LENGTH);
        this.runIndex = new int[n];
        this.runPos = new int[n];
        this.runSize = new int[n];
    }

    /** Reads the records at {@code offsets[0..count)} into {@code out}: null where there is none; negative skipped. */
    void read(final long[] offsets, final int count) {
        try {
            for (int i = 0; i < count; i++) {
                if (offsets[i] >= 0) {
                    readOne(i, offsets[i]);
                }
            }
            copyRun();
        } finally {
            if (read != null) {
                read.close();
            }
        }
    }

    private void readOne(final int i, final long offset) {
        out[i] = null;
        final int index = CommitLog.indexOf(offset, segments, segmentSize);
        if (index < 0 || offset >= writeOffset) {
            return;
        }
        final SegmentFile segment = segments.get(index);
        final int pos = (int) (offset - segment.baseOffset());
        if (read == null || segment != current || !SegmentRecords.coversWhole(segment, read, pos)) {
            copyRun();
            if (read != null) {
                read.close();
            }
            current = segment;
            read = SegmentRecords.open(segment, pos);
            if (read == null) {
                return; // deleted by retention since the caller found it
            }
        }
        final int size = SegmentRecords.check(read, segmentSize, pos, offset, offset < verifiedBelow);
        if (size <= 0) {
            if (size == RecordCodec.INVALID) {
                damage.damaged(offset, -1);
            }
            return;
        }
        if (runCount > 0 && (pos != runEnd || runEnd - runPos[0] + size > MAX_RUN_BYTES
                || runCount == runIndex.length)) {
            copyRun();
        }
        runIndex[runCount] = i;
        runPos[runCount] = pos;
        runSize[runCount] = size;
        runCount++;
        runEnd = pos + size;
    }

    /** Copies the pending run out of the read in one piece and hands out its records as slices of the copy. */
    private void copyRun() {
        if (runCount == 0) {
            return;
        }
        final int first = runPos[0];
        final byte[] copy = new byte[runEnd - first];
        read.buffer().get(first - read.start(), copy);
        final ByteBuffer run = ByteBuffer.wrap(copy).asReadOnlyBuffer();
        for (int r = 0; r < runCount; r++) {
            out[runIndex[r]] = run.slice(runPos[r] - first, runSize[r]);
        }
        runCount = 0;
    }
}
