package io.junction.core.index;

import static io.junction.core.index.IndexFileDescriptor.*;

import io.junction.core.io.SealableMappedFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One hash index file (layout in {@link IndexFileDescriptor}): key → log offsets, newest first.
 *
 * <p>One writer (the dispatcher). The file is mapped while it is filled and sealed (unmapped) once full, see
 * {@link SealableMappedFile}: a full file's pages are no longer kept resident. The header's moving fields are mirrored
 * in fields here, so that other threads never read them from a map the writer may be sealing. Readers may see a
 * slightly stale view; every answer is a candidate that the caller verifies against the log, so a half-written entry
 * after a crash can cost a lookup, never a wrong answer.
 */
final class IndexFile {
    private final SealableMappedFile file;
    private final int slots;
    private final int capacity;
    private final long beginTimestamp;
    private volatile int count;
    private volatile long endTimestamp;
    private volatile long lastLogOffset;
    private volatile boolean dirty;

    private IndexFile(final SealableMappedFile file, final ByteBuffer header) {
        this.file = file;
        this.slots = header.getInt(SLOT_COUNT_OFFSET);
        this.capacity = header.getInt(CAPACITY_OFFSET);
        this.beginTimestamp = header.getLong(BEGIN_TIMESTAMP_OFFSET);
        this.count = Math.min(Math.max(header.getInt(COUNT_OFFSET), 0), capacity);
        this.endTimestamp = header.getLong(END_TIMESTAMP_OFFSET);
        this.lastLogOffset = header.getLong(LAST_LOG_OFFSET_OFFSET);
    }

    static IndexFile create(final Path path, final int capacity, final long firstLogOffset, final long timestamp)
            throws IOException {
        final int slots = Math.max(16, capacity / 4);
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH);
        header.putInt(SLOT_COUNT_OFFSET, slots);
        header.putInt(CAPACITY_OFFSET, capacity);
        header.putLong(BEGIN_TIMESTAMP_OFFSET, timestamp);
        header.putLong(END_TIMESTAMP_OFFSET, timestamp);
        header.putLong(FIRST_LOG_OFFSET_OFFSET, firstLogOffset);
        header.putLong(LAST_LOG_OFFSET_OFFSET, -1);
        header.putInt(MAGIC_OFFSET, MAGIC);
        final SealableMappedFile file = SealableMappedFile.open(path, fileLength(slots, capacity), false);
        file.write(0, header);
        final IndexFile f = new IndexFile(file, header);
        f.dirty = true;
        return f;
    }

    /**
     * Opens an existing file, mapped unless {@code sealed} (it is full: only the newest file is written), or returns
     * null when it is not a valid index file (then it is rebuilt).
     */
    static IndexFile open(final Path path, final boolean sealed) throws IOException {
        final long size = Files.size(path);
        if (size < HEADER_LENGTH) {
            return null;
        }
        final SealableMappedFile file = SealableMappedFile.open(path, size, sealed);
        final ByteBuffer header = file.copy(0, HEADER_LENGTH);
        final int slots = header.getInt(SLOT_COUNT_OFFSET);
        final int capacity = header.getInt(CAPACITY_OFFSET);
        if (header.getInt(MAGIC_OFFSET) != MAGIC || slots <= 0 || capacity <= 0
                || fileLength(slots, capacity) != size) {
            file.close();
            return null;
        }
        return new IndexFile(file, header);
    }

    Path path() {
        return file.path();
    }

    int count() {
        return count;
    }

    boolean hasRoomFor(final int keys) {
        return count() + keys <= capacity;
    }

    long beginTimestamp() {
        return beginTimestamp;
    }

    long endTimestamp() {
        return endTimestamp;
    }

    /** Log offset of the last record indexed here, or -1. */
    long lastLogOffset() {
        return lastLogOffset;
    }

    /**
     * Adds one key of a record (writer thread, file not sealed); {@link #indexed} follows the record's last key. The
     * caller checked {@link #hasRoomFor} for all of them.
     */
    void addKey(final int hash, final long logOffset, final long timestamp) {
        final MappedByteBuffer map = file.writable();
        final int n = count;
        final int slotPos = slotPosition(Math.floorMod(hash, slots));
        final int previous = map.getInt(slotPos);
        final int pos = entryPosition(slots, n);
        map.putInt(pos + ENTRY_HASH_OFFSET, hash);
        map.putLong(pos + ENTRY_LOG_OFFSET_OFFSET, logOffset);
        map.putInt(pos + ENTRY_TIME_OFFSET, (int) Math.max(0, (timestamp - beginTimestamp) / 1000));
        map.putInt(pos + ENTRY_PREVIOUS_OFFSET, previous);
        map.putInt(slotPos, n + 1);
        map.putInt(COUNT_OFFSET, n + 1);
        count = n + 1;
    }

    /** Records that the keys of the record at {@code logOffset}, stored at {@code timestamp}, are in. */
    void indexed(final long logOffset, final long timestamp) {
        final MappedByteBuffer map = file.writable();
        if (timestamp > endTimestamp) {
            map.putLong(END_TIMESTAMP_OFFSET, timestamp);
            endTimestamp = timestamp;
        }
        map.putLong(LAST_LOG_OFFSET_OFFSET, logOffset);
        lastLogOffset = logOffset;
        dirty = true;
    }

    /**
     * Candidate log offsets for the key hashed to {@code hash} ({@link IndexKeyHash}) stored within [begin, end],
     * newest first, appended to {@code out}.
     */
    void find(final int hash, final long beginTimestamp, final long endTimestamp, final int max,
              final List<Long> out) {
        final int count = count();
        final long base = beginTimestamp();
        int entry = file.getInt(slotPosition(Math.floorMod(hash, slots)));
        int steps = 0;
        // Entries only point backwards; the bound stops a loop through a garbled chain.
        while (entry > 0 && entry <= count && out.size() < max && steps++ < capacity) {
            final ByteBuffer e = file.copy(entryPosition(slots, entry - 1), ENTRY_LENGTH);
            if (e.remaining() < ENTRY_LENGTH) {
                break; // deleted meanwhile
            }
            if (e.getInt(ENTRY_HASH_OFFSET) == hash) {
                final long time = base + e.getInt(ENTRY_TIME_OFFSET) * 1000L;
                if (time >= beginTimestamp - 1000 && time <= endTimestamp) {
                    out.add(e.getLong(ENTRY_LOG_OFFSET_OFFSET));
                }
            }
            final int previous = e.getInt(ENTRY_PREVIOUS_OFFSET);
            if (previous >= entry) {
                break;
            }
            entry = previous;
        }
    }

    /** Forgets that records at or past {@code logEnd} were indexed (the log was truncated there). */
    void forgetFrom(final long logEnd) throws IOException {
        if (lastLogOffset() >= logEnd) {
            file.write(LAST_LOG_OFFSET_OFFSET, ByteBuffer.allocate(Long.BYTES).putLong(0, logEnd - 1));
            lastLogOffset = logEnd - 1;
            dirty = true;
        }
    }

    void flush() {
        if (dirty) {
            dirty = false;
            file.force();
        }
    }

    /** Whether the file is sealed: no more keys go in (see {@link #seal}). */
    boolean sealed() {
        return file.sealed();
    }

    /** Full: forced and unmapped (writer thread), see {@link SealableMappedFile#seal}. */
    void seal() {
        file.seal();
    }

    void delete() throws IOException {
        file.close();
        Files.deleteIfExists(file.path());
    }

    /** Unmaps (the writer has stopped). */
    void close() {
        file.close();
    }
}
