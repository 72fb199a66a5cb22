package io.junction.core.log;

import io.junction.core.io.SegmentFile;
import io.junction.core.io.SegmentRead;
import io.junction.core.message.RecordLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds where the log ends after a restart and cuts what lies past it, before the log is opened for writing.
 *
 * <p>Where the log ends: at a position whose size or magic is zero (never written, or a unit whose magic — written
 * last — never went in; see {@link CommitLog#writeUnit}), or at an invalid record that nothing valid follows. Records
 * are written in order and each was forced before it was acknowledged (SYNC), so a written record that fails its
 * check with a valid one after it is damage in the middle of the log (a flipped bit): it is reported and stepped
 * over, and the records after it stay. The next record must start within {@code maxRecordSize} of the damaged one,
 * which bounds the search. No wall-clock heuristics: only the records' own checks decide.
 */
final class LogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(LogRecovery.class);

    /** Where damage is reported (the log counts each damaged offset once). */
    @FunctionalInterface
    interface DamageReport {
        void damaged(long offset, long resumeAt);
    }

    private final List<SegmentFile> all;
    private final int segmentSize;
    private final DamageReport damage;

    LogRecovery(final List<SegmentFile> segments, final int segmentSize, final DamageReport damage) {
        this.all = segments;
        this.segmentSize = segmentSize;
        this.damage = damage;
    }

    /**
     * Scans from {@code from} (a record boundary, or the log's start when below it; the segments are not empty),
     * verifying every record and handing each valid one to {@code visitor}; returns the end of the last valid record.
     */
    long findEnd(final long from, final int maxRecordSize, final CommitLog.RecordVisitor visitor) {
        long offset = Math.max(from, all.get(0).baseOffset());
        long end = offset;
        int index = CommitLog.indexOf(offset, all, segmentSize);
        if (index < 0) {
            // The checkpoint is past the last segment (it was deleted or never forced): start of the last one.
            index = all.size() - 1;
            offset = all.get(index).baseOffset();
            end = offset;
        }
        scan:
        for (; index < all.size(); index++) {
            final SegmentFile segment = all.get(index);
            // The whole segment as one read (a map of its own when larger than a region, unmapped when done): only
            // the pages recovery touches, from the checkpoint on, become resident, and only until it is done.
            try (SegmentRead read = wholeSegment(segment)) {
                final ByteBuffer view = read.buffer();
                int pos = (int) (offset - segment.baseOffset());
                while (true) {
                    final int size = RecordCodec.check(view, pos, segment.baseOffset() + pos);
                    if (size == RecordCodec.BLANK) {
                        offset = segment.baseOffset() + segmentSize;
                        end = offset;
                        continue scan;
                    }
                    if (size == RecordCodec.INVALID) {
                        final long damaged = segment.baseOffset() + pos;
                        final long next = unwritten(view, pos) ? -1
                                : validAfterDamage(index, view, pos, maxRecordSize);
                        if (next < 0) {
                            end = damaged;
                            break scan;
                        }
                        damage.damaged(damaged, next);
                        if (next >= segment.baseOffset() + segmentSize) {
                            offset = next;
                            end = next;
                            continue scan;
                        }
                        pos = (int) (next - segment.baseOffset());
                        continue;
                    }
                    visitor.visit(view, pos, size);
                    pos += size;
                    end = segment.baseOffset() + pos;
                    if (pos == segmentSize) {
                        offset = end;
                        continue scan;
                    }
                }
            }
        }
        return end;
    }

    /** Whether the record at {@code pos} was never (completely) written: its size or its magic is still zero. */
    private static boolean unwritten(final ByteBuffer view, final int pos) {
        return pos + RecordLayout.BLANK_LENGTH > view.limit()
                || view.getInt(pos + RecordLayout.TOTAL_SIZE_OFFSET) == 0
                || view.getInt(pos + RecordLayout.MAGIC_OFFSET) == 0;
    }

    /**
     * Where the next valid record (or blank filler) after damage at {@code pos} of segment {@code index} starts: in the
     * same segment within {@code maxRecordSize}, or at the next segment's start when the damage reaches this segment's
     * end; -1 when there is none (a tail).
     */
    private long validAfterDamage(final int index, final ByteBuffer view, final int pos, final int maxRecordSize) {
        final long base = all.get(index).baseOffset();
        final int windowEnd = (int) Math.min(segmentSize, (long) pos + maxRecordSize + 1);
        // Fast path: a flipped bit in the body or CRC leaves the size field intact.
        final int claimed = view.getInt(pos + RecordLayout.TOTAL_SIZE_OFFSET);
        if (claimed > 0 && (long) pos + claimed < windowEnd
                && RecordCodec.check(view, pos + claimed, base + pos + claimed) != RecordCodec.INVALID) {
            return base + pos + claimed;
        }
        final long found = CommitLog.firstValid(view, base, pos + 1, windowEnd);
        if (found >= 0) {
            return found;
        }
        if (windowEnd == segmentSize && index + 1 < all.size()) {
            final SegmentFile nextSegment = all.get(index + 1);
            try (SegmentRead next = wholeSegment(nextSegment)) {
                if (RecordCodec.check(next.buffer(), 0, nextSegment.baseOffset()) != RecordCodec.INVALID) {
                    return nextSegment.baseOffset();
                }
            }
        }
        return -1;
    }

    private SegmentRead wholeSegment(final SegmentFile segment) {
        final SegmentRead read = segment.read(0, segmentSize);
        if (read == null) {
            throw new IllegalStateException(segment + " was closed during recovery");
        }
        return read;
    }

    /**
     * Clears everything from {@code end} to its segment's end and deletes later segments; returns the segments kept.
     * Stale bytes past the end must go: a later append could line a stale, valid-looking record up with a record
     * boundary, and a later recovery would take it for part of the log. Clearing costs the same however large the
     * segment (see {@link SegmentFile#clearFrom}), so a restart after a crash does not grow with the segment size.
     */
    List<SegmentFile> truncateAfter(final long end) throws IOException {
        final List<SegmentFile> kept = new ArrayList<>(all);
        while (!kept.isEmpty() && kept.get(kept.size() - 1).baseOffset() > end) {
            final SegmentFile last = kept.remove(kept.size() - 1);
            LOG.warn("Recovery: deleting segment {} past the log's end {}", last, end);
            last.delete();
        }
        final int index = CommitLog.indexOf(end, kept, segmentSize);
        if (index >= 0) {
            kept.get(index).clearFrom((int) (end - kept.get(index).baseOffset()));
        }
        return kept;
    }
}
