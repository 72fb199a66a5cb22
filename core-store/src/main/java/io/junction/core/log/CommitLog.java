package io.junction.core.log;

import io.junction.core.io.SegmentFile;
import io.junction.core.io.SegmentFileFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append-only log of records across fixed-size segments named by their first offset (20 digits).
 *
 * <p>Threading: one appender thread calls {@link #write} and {@link #roll}; one flusher calls {@link #force};
 * any thread reads. The segment list is replaced copy-on-write, so readers never lock.
 *
 * <p>Positions: {@link #writeOffset()} is the end of written bytes, {@link #flushedOffset()} the end of forced bytes.
 * Both only grow, except when recovery truncates a torn tail before the log is opened for writing.
 */
public final class CommitLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommitLog.class);
    private static final int ZERO_CHUNK = 64 * 1024;

    private final Path dir;
    private final int segmentSize;
    private final SegmentFileFactory factory;
    private volatile List<SegmentFile> segments;
    private volatile long writeOffset;
    private volatile long flushedOffset;

    private CommitLog(final Path dir, final int segmentSize, final SegmentFileFactory factory,
                      final List<SegmentFile> segments) {
        this.dir = dir;
        this.segmentSize = segmentSize;
        this.factory = factory;
        this.segments = List.copyOf(segments);
    }

    /** Opens the segments under {@code dir}; the write position is unknown until {@link #recover}. */
    public static CommitLog open(final Path dir, final int segmentSize, final SegmentFileFactory factory)
            throws IOException {
        Files.createDirectories(dir);
        final List<SegmentFile> segments = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                final String name = file.getFileName().toString();
                if (!name.matches("\\d{20}")) {
                    continue;
                }
                final long base = Long.parseLong(name);
                if (base % segmentSize != 0) {
                    throw new IOException(file + ": base offset is not a multiple of the segment size "
                            + segmentSize + " (was the segment size changed?)");
                }
                segments.add(factory.open(file, base, segmentSize));
            }
        } catch (IOException e) {
            for (SegmentFile s : segments) {
                s.close();
            }
            throw e;
        }
        for (int i = 1; i < segments.size(); i++) {
            if (segments.get(i).baseOffset() != segments.get(i - 1).baseOffset() + segmentSize) {
                throw new IOException(dir + ": segment " + segments.get(i) + " does not follow "
                        + segments.get(i - 1) + " (a segment file is missing)");
            }
        }
        return new CommitLog(dir, segmentSize, factory, segments);
    }

    public int segmentSize() {
        return segmentSize;
    }

    public long writeOffset() {
        return writeOffset;
    }

    public long flushedOffset() {
        return flushedOffset;
    }

    /** First offset still on disk. */
    public long minOffset() {
        final List<SegmentFile> s = segments;
        return s.isEmpty() ? writeOffset : s.get(0).baseOffset();
    }

    /** Bytes left in the segment holding {@code offset}. */
    public int remainingInSegment(final long offset) {
        return (int) (segmentSize - offset % segmentSize);
    }

    /**
     * Scans from {@code from} (a record boundary, or the log's start when below it), verifying every record, and
     * makes the first invalid position the log's end: the rest of that segment is zeroed and forced, and later
     * segments are deleted. Runs before the log is opened for writing.
     *
     * @param visitor called for each valid record, in order (the dispatcher re-indexing what the checkpoint lacks)
     * @return the recovered end
     */
    public long recover(final long from, final RecordVisitor visitor) throws IOException {
        final List<SegmentFile> all = segments;
        if (all.isEmpty()) {
            writeOffset = from - from % segmentSize;
            flushedOffset = writeOffset;
            return writeOffset;
        }
        long offset = Math.max(from, all.get(0).baseOffset());
        long end = offset;
        int index = indexOf(offset, all);
        if (index < 0) {
            // The checkpoint is past the last segment (it was deleted or never forced): start of the last one.
            index = all.size() - 1;
            offset = all.get(index).baseOffset();
            end = offset;
        }
        scan:
        for (; index < all.size(); index++) {
            final SegmentFile segment = all.get(index);
            final ByteBuffer view = segment.view();
            int pos = (int) (offset - segment.baseOffset());
            while (true) {
                final int size = RecordCodec.check(view, pos, segment.baseOffset() + pos);
                if (size == RecordCodec.BLANK) {
                    offset = segment.baseOffset() + segmentSize;
                    end = offset;
                    continue scan;
                }
                if (size == RecordCodec.INVALID) {
                    end = segment.baseOffset() + pos;
                    break scan;
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
        truncateAfter(end);
        writeOffset = end;
        flushedOffset = end;
        return end;
    }

    /** Zeroes everything from {@code end} to its segment's end and deletes later segments. */
    private void truncateAfter(final long end) throws IOException {
        final List<SegmentFile> all = new ArrayList<>(segments);
        while (!all.isEmpty() && all.get(all.size() - 1).baseOffset() > end) {
            final SegmentFile last = all.remove(all.size() - 1);
            LOG.warn("Recovery: deleting segment {} past the log's end {}", last, end);
            last.delete();
        }
        segments = List.copyOf(all);
        final int index = indexOf(end, all);
        if (index < 0) {
            return;
        }
        final SegmentFile segment = all.get(index);
        final ByteBuffer view = segment.view();
        final ByteBuffer zeros = ByteBuffer.allocate(ZERO_CHUNK);
        boolean zeroed = false;
        // Stale bytes past the end must go: a later append could line a stale, valid-looking record up with a
        // record boundary, and a later recovery would take it for part of the log.
        for (int pos = (int) (end - segment.baseOffset()); pos < segmentSize; pos += ZERO_CHUNK) {
            final int len = Math.min(ZERO_CHUNK, segmentSize - pos);
            if (!allZero(view, pos, len)) {
                segment.write(pos, zeros.clear().limit(len));
                zeroed = true;
            }
        }
        if (zeroed) {
            LOG.warn("Recovery: cleared a torn or stale tail after log offset {} in {}", end, segment);
            segment.force();
        }
    }

    private static boolean allZero(final ByteBuffer view, final int pos, final int len) {
        int i = pos;
        final int end = pos + len;
        for (; i + 8 <= end; i += 8) {
            if (view.getLong(i) != 0) {
                return false;
            }
        }
        for (; i < end; i++) {
            if (view.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes {@code data} at the write offset (appender thread only). The caller has checked it fits the segment.
     *
     * @throws IOException when the write failed; the write offset is unchanged then
     */
    public void write(final ByteBuffer data) throws IOException {
        final long offset = writeOffset;
        final SegmentFile segment = segmentFor(offset);
        final int length = data.remaining();
        segment.write((int) (offset - segment.baseOffset()), data);
        writeOffset = offset + length;
    }

    /**
     * Writes several records as one unit (a batch), as {@link #write} does, except that the first record's magic goes
     * in last, once everything else is in place. Recovery ends the log at the first record it cannot verify, so a unit
     * cut short by a failed write, or by a crash before its last step, is dropped whole: never a prefix of it.
     *
     * @throws IOException when a write failed; the write offset is unchanged then
     */
    public void writeUnit(final ByteBuffer data) throws IOException {
        final long offset = writeOffset;
        final SegmentFile segment = segmentFor(offset);
        final int length = data.remaining();
        final int base = data.position();
        final int position = (int) (offset - segment.baseOffset());
        final int magic = data.getInt(base + RecordDescriptor.MAGIC_OFFSET);
        data.putInt(base + RecordDescriptor.MAGIC_OFFSET, 0);
        try {
            segment.write(position, data.duplicate());
        } finally {
            data.putInt(base + RecordDescriptor.MAGIC_OFFSET, magic);
        }
        segment.write(position + RecordDescriptor.MAGIC_OFFSET, ByteBuffer.allocate(4).putInt(0, magic));
        writeOffset = offset + length;
    }

    /** Closes the current segment with a blank record and moves the write offset to the next segment's start. */
    public void roll() throws IOException {
        final long offset = writeOffset;
        final int remaining = remainingInSegment(offset);
        if (remaining < segmentSize) {
            final SegmentFile segment = segmentFor(offset);
            segment.write((int) (offset - segment.baseOffset()), RecordCodec.blank(remaining));
        }
        writeOffset = offset + remaining;
    }

    /** Forces every segment holding unforced bytes; on failure the log must stop taking writes (fail-stop). */
    public synchronized long force() throws IOException {
        final long target = writeOffset;
        final long from = flushedOffset;
        if (target == from) {
            return target;
        }
        for (SegmentFile segment : segments) {
            if (segment.baseOffset() + segmentSize > from && segment.baseOffset() < target) {
                segment.force();
            }
        }
        flushedOffset = target;
        return target;
    }

    /**
     * A read-only view of {@code size} bytes at {@code offset}, or null when the offset is no longer (or not yet) in
     * the log.
     */
    public ByteBuffer read(final long offset, final int size) {
        final List<SegmentFile> all = segments;
        final int index = indexOf(offset, all);
        if (index < 0) {
            return null;
        }
        final SegmentFile segment = all.get(index);
        final int pos = (int) (offset - segment.baseOffset());
        if (size <= 0 || pos + (long) size > segmentSize) {
            return null;
        }
        return segment.view().position(pos).limit(pos + size).slice();
    }

    /**
     * The valid record at {@code offset}, verified (size, magic, own offset, CRC), or null when there is none. Bytes
     * that fail the check are never served.
     */
    public ByteBuffer readRecord(final long offset) {
        final List<SegmentFile> all = segments;
        final int index = indexOf(offset, all);
        if (index < 0 || offset >= writeOffset) {
            return null;
        }
        final SegmentFile segment = all.get(index);
        final ByteBuffer view = segment.view();
        final int pos = (int) (offset - segment.baseOffset());
        final int size = RecordCodec.check(view, pos, offset);
        if (size <= 0) {
            return null;
        }
        return view.position(pos).limit(pos + size).slice();
    }

    /** Visits valid records from {@code from} up to {@code to}; returns where it stopped (a record boundary). */
    public long scan(final long from, final long to, final RecordVisitor visitor) {
        long offset = from;
        while (offset < to) {
            final List<SegmentFile> all = segments;
            final int index = indexOf(offset, all);
            if (index < 0) {
                return offset;
            }
            final SegmentFile segment = all.get(index);
            final ByteBuffer view = segment.view();
            final int pos = (int) (offset - segment.baseOffset());
            final int size = RecordCodec.check(view, pos, offset);
            if (size == RecordCodec.BLANK) {
                offset = segment.baseOffset() + segmentSize;
                continue;
            }
            if (size == RecordCodec.INVALID) {
                // Written and checked before it became visible, so this is damage (a flipped bit): report, and
                // step to the next valid record boundary if there is one.
                final long next = resync(view, pos, segment.baseOffset(), to);
                LOG.error("Log offset {}: record fails its check (corrupt); skipping to {}", offset, next);
                offset = next;
                continue;
            }
            visitor.visit(view, pos, size);
            offset += size;
        }
        return offset;
    }

    /** Finds the next position after a corrupt record where a valid record starts (or the segment's end). */
    private long resync(final ByteBuffer view, final int from, final long base, final long limit) {
        final int end = (int) Math.min(segmentSize, limit - base);
        for (int p = from + 1; p + RecordDescriptor.BLANK_LENGTH <= end; p++) {
            final int magic = view.getInt(p + RecordDescriptor.MAGIC_OFFSET);
            if ((magic == RecordDescriptor.MAGIC_V1 || magic == RecordDescriptor.MAGIC_V2
                    || magic == RecordDescriptor.BLANK_MAGIC) && RecordCodec.check(view, p, base + p) != RecordCodec.INVALID) {
                return base + p;
            }
        }
        return Math.min(base + segmentSize, limit);
    }

    /** Creates the segment starting at {@code baseOffset} if it does not exist (appender thread). */
    public synchronized void ensureSegment(final long baseOffset) throws IOException {
        final List<SegmentFile> all = segments;
        if (!all.isEmpty() && all.get(all.size() - 1).baseOffset() >= baseOffset) {
            return;
        }
        final SegmentFile segment = factory.open(dir.resolve(String.format("%020d", baseOffset)), baseOffset,
                segmentSize);
        final List<SegmentFile> next = new ArrayList<>(all);
        next.add(segment);
        segments = List.copyOf(next);
    }

    /** Segments, oldest first. */
    public List<SegmentFile> segments() {
        return segments;
    }

    /** Deletes the oldest segment (retention); never the one being written. */
    public synchronized boolean deleteOldest() throws IOException {
        final List<SegmentFile> all = segments;
        if (all.size() < 2 || all.get(0).baseOffset() + segmentSize > writeOffset) {
            return false;
        }
        final SegmentFile oldest = all.get(0);
        segments = List.copyOf(all.subList(1, all.size()));
        oldest.delete();
        return true;
    }

    private SegmentFile segmentFor(final long offset) throws IOException {
        final List<SegmentFile> all = segments;
        final int index = indexOf(offset, all);
        if (index < 0) {
            throw new IOException("no segment for log offset " + offset);
        }
        return all.get(index);
    }

    private int indexOf(final long offset, final List<SegmentFile> all) {
        if (all.isEmpty()) {
            return -1;
        }
        final long first = all.get(0).baseOffset();
        if (offset < first) {
            return -1;
        }
        final long index = (offset - first) / segmentSize;
        return index < all.size() ? (int) index : -1;
    }

    @Override
    public void close() throws IOException {
        for (SegmentFile segment : segments) {
            segment.close();
        }
    }

    /** Receives records during a scan. */
    @FunctionalInterface
    public interface RecordVisitor {
        /** A valid record of {@code size} bytes at {@code position} of {@code segmentView}. */
        void visit(ByteBuffer segmentView, int position, int size);
    }
}
