package io.junction.core.log;

import io.junction.core.io.FileList;
import io.junction.core.io.SegmentFile;
import io.junction.core.io.SegmentFileFactory;
import io.junction.core.io.SegmentRead;
import io.junction.core.message.RecordLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
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
    /** Damaged offsets remembered so that each is logged and counted once, not once per reader. */
    private static final int MAX_REMEMBERED_DAMAGE = 4096;

    private final Path dir;
    private final int segmentSize;
    private final SegmentFileFactory factory;
    private volatile List<SegmentFile> segments;
    private volatile long writeOffset;
    private volatile long flushedOffset;
    /**
     * Where this process started appending: records from here on were sealed (CRC computed) by this process from the
     * very bytes it wrote, so reads check their structure but do not recompute the CRC. Records before it come from an
     * earlier run (recovery verified only the tail after the checkpoint) and are verified on every read.
     */
    private volatile long appendedFrom = Long.MAX_VALUE;
    private final LongAdder damagedRecords = new LongAdder();
    private final Set<Long> reportedDamage = ConcurrentHashMap.newKeySet();

    private CommitLog(final Path dir, final int segmentSize, final SegmentFileFactory factory,
                      final List<SegmentFile> segments) {
        this.dir = dir;
        this.segmentSize = segmentSize;
        this.factory = factory;
        this.segments = FileList.copyOf(segments);
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
     * Scans from {@code from} (a record boundary, or the log's start when below it), verifying every record, and makes
     * the end of the last valid record the log's end: the rest of that segment is cleared durably, and later
     * segments are deleted ({@link LogRecovery} says where a log ends). Runs before the log is opened for writing.
     *
     * @param maxRecordSize the largest record the store can have written (bounds the search past damage)
     * @param visitor       called for each valid record, in order (the dispatcher re-indexing what the checkpoint
     *                      lacks)
     * @return the recovered end
     */
    public long recover(final long from, final int maxRecordSize, final RecordVisitor visitor) throws IOException {
        final List<SegmentFile> all = segments;
        if (all.isEmpty()) {
            writeOffset = from - from % segmentSize;
            flushedOffset = writeOffset;
            appendedFrom = writeOffset;
            return writeOffset;
        }
        final LogRecovery recovery = new LogRecovery(all, segmentSize, this::reportDamage);
        final long end = recovery.findEnd(from, maxRecordSize, visitor);
        segments = FileList.copyOf(recovery.truncateAfter(end));
        writeOffset = end;
        flushedOffset = end;
        appendedFrom = end;
        return end;
    }

    /** Logs and counts a damaged record once, however many readers meet it. */
    private void reportDamage(final long offset, final long resumeAt) {
        if (reportedDamage.size() >= MAX_REMEMBERED_DAMAGE) {
            reportedDamage.clear();
        }
        if (reportedDamage.add(offset)) {
            damagedRecords.increment();
            if (resumeAt >= 0) {
                LOG.error("Log offset {}: record fails its check (damaged on disk); skipped, the log continues at {}",
                        offset, resumeAt);
            } else {
                LOG.error("Log offset {}: record fails its check (damaged on disk); it is not served", offset);
            }
        }
    }

    /** Damaged records met so far (by recovery, scans and reads), each counted once. */
    public long damagedRecords() {
        return damagedRecords.sum();
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
     * in last, once everything else is in place. Recovery ends the log at a record whose magic is still zero, so a unit
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
        final int magic = data.getInt(base + RecordLayout.MAGIC_OFFSET);
        data.putInt(base + RecordLayout.MAGIC_OFFSET, 0);
        try {
            segment.write(position, data.duplicate());
        } finally {
            data.putInt(base + RecordLayout.MAGIC_OFFSET, magic);
        }
        segment.write(position + RecordLayout.MAGIC_OFFSET, ByteBuffer.allocate(4).putInt(0, magic));
        writeOffset = offset + length;
    }

    /**
     * Copies the bytes {@code [from, to)} of the log, which may cross into the next segment (a replicated store's
     * leader reading back what it just wrote, to ship it to the followers).
     */
    public ByteBuffer copyRange(final long from, final long to) throws IOException {
        final ByteBuffer copy = ByteBuffer.allocate(Math.toIntExact(to - from));
        long offset = from;
        while (offset < to) {
            final int length = (int) Math.min(to - offset, remainingInSegment(offset));
            final ByteBuffer part = read(offset, length);
            if (part == null) {
                throw new IOException("log offset " + offset + " is not in the log");
            }
            copy.put(part);
            offset += length;
        }
        return copy.flip();
    }

    /**
     * Writes bytes a replicated store's leader wrote at {@code offset}, which must be this log's write offset:
     * whole records and blank fillers, possibly crossing into the next segment (a follower writing a range of its
     * group; the caller is the only writer).
     *
     * @throws IOException when {@code offset} is not the write offset (a gap or an overlap) or a write failed
     */
    public void appendReplicated(final long offset, final ByteBuffer data) throws IOException {
        if (offset != writeOffset) {
            throw new IOException("replicated range at " + offset + " does not continue the log at " + writeOffset);
        }
        final ByteBuffer rest = data.duplicate();
        while (rest.hasRemaining()) {
            final long at = writeOffset;
            ensureSegment(at - at % segmentSize);
            final int length = Math.min(rest.remaining(), remainingInSegment(at));
            write(rest.duplicate().limit(rest.position() + length));
            rest.position(rest.position() + length);
        }
    }

    /**
     * Cuts the log at {@code end} (a record boundary at or below the write offset): a replica dropping a tail its
     * group never committed, before the log is opened for writing or, on a follower writing ahead, by its only
     * writer. Same durable clearing as recovery's; synchronized with {@link #force}, which must not force segments
     * being cut.
     */
    public synchronized void truncate(final long end) throws IOException {
        if (end > writeOffset) {
            throw new IOException("cannot truncate the log at " + end + ": it ends at " + writeOffset);
        }
        if (segments.isEmpty() || end == writeOffset) {
            return;
        }
        LOG.warn("Cutting the log at {} (it ended at {}): the replicated group never committed the rest", end,
                writeOffset);
        segments = FileList.copyOf(new LogRecovery(segments, segmentSize, this::reportDamage).truncateAfter(end));
        writeOffset = end;
        flushedOffset = end;
        appendedFrom = Math.min(appendedFrom, end);
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
     * A read-only copy of {@code size} bytes at {@code offset}, or null when the offset is no longer (or not yet) in
     * the log. A copy, as everything the log hands out: a mapped view would pin its region in memory for as long as
     * the caller keeps it (see {@link io.junction.core.io.MappedWindow}).
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
        try (SegmentRead read = segment.read(pos, size)) {
            return read == null ? null : copy(read, pos, size);
        }
    }

    /** A read-only heap copy of {@code size} bytes at segment position {@code pos} of a read covering them. */
    private static ByteBuffer copy(final SegmentRead read, final int pos, final int size) {
        final int p = pos - read.start();
        final ByteBuffer copy = ByteBuffer.allocate(size);
        copy.put(read.buffer().duplicate().limit(p + size).position(p));
        return copy.flip().asReadOnlyBuffer();
    }

    /**
     * The valid record at {@code offset}, an offset an index points at, verified (size, magic, own offset, CRC — the
     * CRC only for records of an earlier run, see {@link #appendedFrom}), or null when there is none. Bytes that fail
     * the check are never served; as the index says a record is there, they are damage, reported once.
     */
    public ByteBuffer readRecord(final long offset) {
        return verifiedRecord(offset, true);
    }

    /**
     * The records at {@code offsets[0..count)}, offsets queue entries point at, with the sizes the entries give, each
     * checked and handed out as {@link #readRecord} would (null in {@code out} where there is none; a negative offset is
     * skipped and its slot left as it is). Cheaper per record than one {@link #readRecord} each when records lie next
     * to each other, as a queue's often do: see {@link RecordRunReader}.
     */
    public void readRecords(final long[] offsets, final int[] sizes, final int count, final ByteBuffer[] out) {
        readRecords(offsets, sizes, count, out, ByteBuffer::allocate);
    }

    /**
     * {@link #readRecords(long[], int[], int, ByteBuffer[])} into memory {@code memory} gives: a buffer of {@code n}
     * bytes (position 0, limit {@code n}) for each run of that many bytes read in one piece.
     */
    public void readRecords(final long[] offsets, final int[] sizes, final int count, final ByteBuffer[] out,
                            final IntFunction<ByteBuffer> memory) {
        new RecordRunReader(segments, segmentSize, writeOffset, appendedFrom, this::reportDamage, out, memory)
                .read(offsets, sizes, count);
    }

    /**
     * Like {@link #readRecord} for an offset nobody vouches for (one decoded from a client's message id): no record
     * there is an answer, not damage.
     */
    public ByteBuffer lookupRecord(final long offset) {
        return verifiedRecord(offset, false);
    }

    private ByteBuffer verifiedRecord(final long offset, final boolean indexed) {
        final List<SegmentFile> all = segments;
        final int index = indexOf(offset, all);
        if (index < 0 || offset >= writeOffset) {
            return null;
        }
        final SegmentFile segment = all.get(index);
        final int pos = (int) (offset - segment.baseOffset());
        final SegmentRead read = SegmentRecords.open(segment, pos);
        if (read == null) {
            return null; // deleted by retention since this reader found it
        }
        try (read) {
            final int size = SegmentRecords.check(read, segmentSize, pos, offset, offset < appendedFrom);
            if (size <= 0) {
                if (indexed && size == RecordCodec.INVALID) {
                    reportDamage(offset, -1);
                }
                return null;
            }
            return copy(read, pos, size);
        }
    }

    /**
     * Visits valid records from {@code from} up to {@code to}; returns where it stopped (a record boundary). The
     * visitor gets the bytes for the length of its call only (they may be unmapped after it), and one read serves the
     * records of a region in turn.
     */
    public long scan(final long from, final long to, final RecordVisitor visitor) {
        long offset = from;
        SegmentFile current = null;
        SegmentRead read = null;
        try {
            while (offset < to) {
                final List<SegmentFile> all = segments;
                final int index = indexOf(offset, all);
                if (index < 0) {
                    return offset;
                }
                final SegmentFile segment = all.get(index);
                final int pos = (int) (offset - segment.baseOffset());
                final int head = Math.min(RecordLayout.BLANK_LENGTH, segmentSize - pos);
                if (read != null && (segment != current || !read.covers(pos, head))) {
                    read.close();
                    read = null;
                }
                read = read == null ? segment.read(pos, head) : read;
                read = read == null ? null : SegmentRecords.whole(segment, read, pos);
                if (read == null) {
                    return offset; // the segment was deleted meanwhile
                }
                current = segment;
                final int size = SegmentRecords.check(read, segmentSize, pos, offset, true);
                if (size == RecordCodec.BLANK) {
                    offset = segment.baseOffset() + segmentSize;
                    continue;
                }
                if (size == RecordCodec.INVALID) {
                    // Written and checked before it became visible, so this is damage (a flipped bit): report, and
                    // step to the next valid record boundary if there is one.
                    final long next = resync(segment, pos, to);
                    reportDamage(offset, next);
                    offset = next;
                    continue;
                }
                visitor.visit(read.buffer(), pos - read.start(), size);
                offset += size;
            }
            return offset;
        } finally {
            if (read != null) {
                read.close();
            }
        }
    }

    /** Finds the next position after a corrupt record where a valid record starts (or the segment's end). */
    private long resync(final SegmentFile segment, final int from, final long limit) {
        final long base = segment.baseOffset();
        try (SegmentRead whole = segment.read(0, segmentSize)) {
            final long found = whole == null ? -1
                    : firstValid(whole.buffer(), base, from + 1, (int) Math.min(segmentSize, limit - base));
            return found >= 0 ? found : Math.min(base + segmentSize, limit);
        }
    }

    /** The first position in [from, end) of a segment view where a valid record or blank filler starts, else -1. */
    static long firstValid(final ByteBuffer view, final long base, final int from, final int end) {
        for (int p = from; p + RecordLayout.BLANK_LENGTH <= end; p++) {
            final int magic = view.getInt(p + RecordLayout.MAGIC_OFFSET);
            if ((magic == RecordLayout.MAGIC_V1 || magic == RecordLayout.MAGIC_V2
                    || magic == RecordLayout.BLANK_MAGIC)
                    && RecordCodec.check(view, p, base + p) != RecordCodec.INVALID) {
                return base + p;
            }
        }
        return -1;
    }

    /**
     * Creates the segment starting at {@code baseOffset} if it does not exist (appender thread). The appender asks at
     * the start of every batch, and the segment nearly always exists: that answer comes from the volatile list without
     * the log's monitor, because {@link #force()} holds the monitor for a whole fsync, and taking it here made every
     * ASYNC-mode append wait for the flusher's fsync (a JFR profile of fixed-rate Remoting sends found the appender
     * blocked here for up to 334 ms at a time on a busy disk).
     */
    public void ensureSegment(final long baseOffset) throws IOException {
        if (hasSegment(segments, baseOffset)) {
            return;
        }
        synchronized (this) {
            final List<SegmentFile> all = segments;
            if (hasSegment(all, baseOffset)) {
                return;
            }
            final SegmentFile segment = factory.open(dir.resolve(String.format("%020d", baseOffset)), baseOffset,
                    segmentSize);
            final List<SegmentFile> next = new ArrayList<>(all);
            next.add(segment);
            segments = FileList.copyOf(next);
        }
    }

    private static boolean hasSegment(final List<SegmentFile> all, final long baseOffset) {
        return !all.isEmpty() && all.get(all.size() - 1).baseOffset() >= baseOffset;
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
        segments = FileList.copyOf(all.subList(1, all.size()));
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
        return indexOf(offset, all, segmentSize);
    }

    /** The position in {@code all} of the segment holding {@code offset}, or -1. */
    static int indexOf(final long offset, final List<SegmentFile> all, final int segmentSize) {
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
