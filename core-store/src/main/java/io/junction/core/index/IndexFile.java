package io.junction.core.index;

import static io.junction.core.index.IndexFileDescriptor.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * One memory-mapped hash index file (layout in {@link IndexFileDescriptor}): key → log offsets, newest first.
 *
 * <p>One writer (the dispatcher). Readers may see a slightly stale view; every answer is a candidate that the caller
 * verifies against the log, so a half-written entry after a crash can cost a lookup, never a wrong answer.
 */
final class IndexFile {
    private final Path path;
    private final MappedByteBuffer map;
    private final int slots;
    private final int capacity;
    private boolean dirty;

    private IndexFile(final Path path, final MappedByteBuffer map, final int slots, final int capacity) {
        this.path = path;
        this.map = map;
        this.slots = slots;
        this.capacity = capacity;
    }

    static IndexFile create(final Path path, final int capacity, final long firstLogOffset, final long timestamp)
            throws IOException {
        final int slots = Math.max(16, capacity / 4);
        final IndexFile f = new IndexFile(path, map(path, fileLength(slots, capacity)), slots, capacity);
        f.map.putInt(SLOT_COUNT_OFFSET, slots);
        f.map.putInt(CAPACITY_OFFSET, capacity);
        f.map.putLong(BEGIN_TIMESTAMP_OFFSET, timestamp);
        f.map.putLong(END_TIMESTAMP_OFFSET, timestamp);
        f.map.putLong(FIRST_LOG_OFFSET_OFFSET, firstLogOffset);
        f.map.putLong(LAST_LOG_OFFSET_OFFSET, -1);
        f.map.putInt(MAGIC_OFFSET, MAGIC);
        f.dirty = true;
        return f;
    }

    /** Opens an existing file, or returns null when it is not a valid index file (then it is rebuilt). */
    static IndexFile open(final Path path) throws IOException {
        final long size = Files.size(path);
        if (size < HEADER_LENGTH) {
            return null;
        }
        final MappedByteBuffer map = map(path, size);
        final int slots = map.getInt(SLOT_COUNT_OFFSET);
        final int capacity = map.getInt(CAPACITY_OFFSET);
        if (map.getInt(MAGIC_OFFSET) != MAGIC || slots <= 0 || capacity <= 0
                || fileLength(slots, capacity) != size) {
            return null;
        }
        return new IndexFile(path, map, slots, capacity);
    }

    private static MappedByteBuffer map(final Path path, final long size) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            if (ch.size() < size) {
                ch.write(ByteBuffer.allocate(1), size - 1);
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
        }
    }

    Path path() {
        return path;
    }

    int count() {
        return Math.min(Math.max(map.getInt(COUNT_OFFSET), 0), capacity);
    }

    boolean hasRoomFor(final int keys) {
        return count() + keys <= capacity;
    }

    long beginTimestamp() {
        return map.getLong(BEGIN_TIMESTAMP_OFFSET);
    }

    long endTimestamp() {
        return map.getLong(END_TIMESTAMP_OFFSET);
    }

    /** Log offset of the last record indexed here, or -1. */
    long lastLogOffset() {
        return map.getLong(LAST_LOG_OFFSET_OFFSET);
    }

    /** Adds the keys of one record. The caller checked {@link #hasRoomFor}. */
    void add(final List<String> keys, final long logOffset, final long timestamp) {
        int count = count();
        final long begin = beginTimestamp();
        for (String key : keys) {
            final int hash = hash(key);
            final int slotPos = slotPosition(Math.floorMod(hash, slots));
            final int previous = map.getInt(slotPos);
            final int pos = entryPosition(slots, count);
            map.putInt(pos + ENTRY_HASH_OFFSET, hash);
            map.putLong(pos + ENTRY_LOG_OFFSET_OFFSET, logOffset);
            map.putInt(pos + ENTRY_TIME_OFFSET, (int) Math.max(0, (timestamp - begin) / 1000));
            map.putInt(pos + ENTRY_PREVIOUS_OFFSET, previous);
            map.putInt(slotPos, count + 1);
            count++;
        }
        map.putInt(COUNT_OFFSET, count);
        if (timestamp > endTimestamp()) {
            map.putLong(END_TIMESTAMP_OFFSET, timestamp);
        }
        map.putLong(LAST_LOG_OFFSET_OFFSET, logOffset);
        dirty = true;
    }

    /** Candidate log offsets for {@code key} stored within [begin, end], newest first, appended to {@code out}. */
    void find(final String key, final long beginTimestamp, final long endTimestamp, final int max,
              final List<Long> out) {
        final int hash = hash(key);
        final int count = count();
        final long base = beginTimestamp();
        int entry = map.getInt(slotPosition(Math.floorMod(hash, slots)));
        int steps = 0;
        // Entries only point backwards; the bound stops a loop through a garbled chain.
        while (entry > 0 && entry <= count && out.size() < max && steps++ < capacity) {
            final int pos = entryPosition(slots, entry - 1);
            if (map.getInt(pos + ENTRY_HASH_OFFSET) == hash) {
                final long time = base + map.getInt(pos + ENTRY_TIME_OFFSET) * 1000L;
                if (time >= beginTimestamp - 1000 && time <= endTimestamp) {
                    out.add(map.getLong(pos + ENTRY_LOG_OFFSET_OFFSET));
                }
            }
            final int previous = map.getInt(pos + ENTRY_PREVIOUS_OFFSET);
            if (previous >= entry) {
                break;
            }
            entry = previous;
        }
    }

    /** Forgets that records at or past {@code logEnd} were indexed (the log was truncated there). */
    void forgetFrom(final long logEnd) {
        if (lastLogOffset() >= logEnd) {
            map.putLong(LAST_LOG_OFFSET_OFFSET, logEnd - 1);
            dirty = true;
        }
    }

    void flush() {
        if (dirty) {
            dirty = false;
            map.force();
        }
    }

    void delete() throws IOException {
        Files.deleteIfExists(path);
    }

    private static int hash(final String key) {
        return key.hashCode() & 0x7FFFFFFF;
    }
}
