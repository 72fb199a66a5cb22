package io.junction.core.queue;

import static io.junction.core.queue.QueueEntryDescriptor.ENTRY_LENGTH;

import io.junction.core.io.FileList;
import io.junction.core.io.SealableMappedFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index of one (topic, queue): fixed 20-byte entries ({@link QueueEntryDescriptor}) in files of
 * {@code entriesPerFile} entries, named by the byte position of their first entry (20 digits). The file being filled
 * is memory-mapped; a full one is sealed (unmapped, read through its channel, see {@link SealableMappedFile}) when the
 * next one starts, so the queue's resident pages do not grow with its length. Entries are handed out as copies.
 *
 * <p>Derived state: everything here can be rebuilt from the commit log. One dispatcher thread writes; any thread
 * reads entries below {@link #maxOffset()}, which is published after the entry is written.
 */
public final class ConsumeQueue {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumeQueue.class);
    /** Entries read at a time when looking for a file's first and last entry at open. */
    private static final int SCAN_CHUNK = 4096;

    /** One file of entries. */
    private record QueueFile(long firstOffset, SealableMappedFile file) {
        Path path() {
            return file.path();
        }
    }

    private final String topic;
    private final int queueId;
    private final Path dir;
    private final int entriesPerFile;
    private volatile List<QueueFile> files;
    private volatile long minOffset;
    private volatile long maxOffset;
    private long lastFlushedMax;

    private ConsumeQueue(final String topic, final int queueId, final Path dir, final int entriesPerFile,
                         final List<QueueFile> files) {
        this.topic = topic;
        this.queueId = queueId;
        this.dir = dir;
        this.entriesPerFile = entriesPerFile;
        this.files = FileList.copyOf(files);
    }

    /** Opens (or creates, empty) the queue stored in {@code dir}. */
    static ConsumeQueue open(final String topic, final int queueId, final Path dir, final int entriesPerFile)
            throws IOException {
        final List<QueueFile> files = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> list = Files.list(dir)) {
                final List<Path> paths = list.filter(p -> p.getFileName().toString().matches("\\d{20}"))
                        .sorted(Comparator.comparing(Path::getFileName)).toList();
                for (Path p : paths) {
                    final long position = Long.parseLong(p.getFileName().toString());
                    if (position % ((long) entriesPerFile * ENTRY_LENGTH) != 0) {
                        throw new IOException(p + ": not aligned to " + entriesPerFile
                                + " entries per file (was the queue file size changed?)");
                    }
                    // Only the last file is written to; the ones before it are full.
                    files.add(new QueueFile(position / ENTRY_LENGTH, SealableMappedFile.open(p,
                            (long) entriesPerFile * ENTRY_LENGTH, p != paths.get(paths.size() - 1))));
                }
            }
        }
        final ConsumeQueue queue = new ConsumeQueue(topic, queueId, dir, entriesPerFile, files);
        queue.findBounds();
        return queue;
    }

    /** Sets min to the first written entry and max past the last written one. */
    private void findBounds() {
        final List<QueueFile> all = files;
        if (all.isEmpty()) {
            minOffset = 0;
            maxOffset = 0;
            return;
        }
        final QueueFile first = all.get(0);
        long min = first.firstOffset() + entriesPerFile;
        scanFirst:
        for (int from = 0; from < entriesPerFile; from += SCAN_CHUNK) {
            final int n = Math.min(SCAN_CHUNK, entriesPerFile - from);
            final ByteBuffer chunk = first.file().copy(from * ENTRY_LENGTH, n * ENTRY_LENGTH);
            for (int i = 0; i < n; i++) {
                if (QueueEntryDescriptor.size(chunk, i * ENTRY_LENGTH) > 0) {
                    min = first.firstOffset() + from + i;
                    break scanFirst;
                }
            }
        }
        final QueueFile last = all.get(all.size() - 1);
        long max = last.firstOffset();
        scanLast:
        for (int to = entriesPerFile; to > 0; to -= SCAN_CHUNK) {
            final int from = Math.max(0, to - SCAN_CHUNK);
            final ByteBuffer chunk = last.file().copy(from * ENTRY_LENGTH, (to - from) * ENTRY_LENGTH);
            for (int i = to - from - 1; i >= 0; i--) {
                if (QueueEntryDescriptor.size(chunk, i * ENTRY_LENGTH) > 0) {
                    max = last.firstOffset() + from + i + 1;
                    break scanLast;
                }
            }
        }
        minOffset = Math.min(min, max);
        maxOffset = max;
        lastFlushedMax = max;
    }

    public String topic() {
        return topic;
    }

    public int queueId() {
        return queueId;
    }

    /** Smallest readable queue offset. */
    public long minOffset() {
        return minOffset;
    }

    /** The offset the next entry will get. */
    public long maxOffset() {
        return maxOffset;
    }

    /**
     * Writes the entry for {@code queueOffset} (dispatcher thread). Re-writing an existing entry (re-indexing after a
     * restart) writes the same bytes again.
     */
    void put(final long queueOffset, final long logOffset, final int size, final long tagHash) throws IOException {
        final QueueFile file = fileFor(queueOffset, true);
        write(file, (int) (queueOffset - file.firstOffset()) * ENTRY_LENGTH, logOffset, size, tagHash);
        if (queueOffset >= maxOffset) {
            if (queueOffset > maxOffset) {
                LOG.warn("Queue {}-{}: entries {}..{} missing (holes)", topic, queueId, maxOffset, queueOffset - 1);
            }
            maxOffset = queueOffset + 1;
        }
    }

    /** Writes an entry: into the map of the file being filled, or through the channel of a sealed one (re-indexing). */
    private static void write(final QueueFile file, final int position, final long logOffset, final int size,
                              final long tagHash) throws IOException {
        final MappedByteBuffer map = file.file().writable();
        if (map != null) {
            QueueEntryDescriptor.write(map, position, logOffset, size, tagHash);
        } else {
            final ByteBuffer entry = ByteBuffer.allocate(ENTRY_LENGTH);
            QueueEntryDescriptor.write(entry, 0, logOffset, size, tagHash);
            file.file().write(position, entry);
        }
    }

    /**
     * A copy of consecutive entries starting at {@code queueOffset}, at most {@code maxEntries} and never across a
     * file; empty when the offset is outside [min, max).
     */
    public ByteBuffer entries(final long queueOffset, final int maxEntries) {
        final long max = maxOffset;
        if (queueOffset < minOffset || queueOffset >= max) {
            return ByteBuffer.allocate(0);
        }
        final QueueFile file;
        try {
            file = fileFor(queueOffset, false);
        } catch (IOException e) {
            return ByteBuffer.allocate(0);
        }
        if (file == null) {
            return ByteBuffer.allocate(0);
        }
        final int index = (int) (queueOffset - file.firstOffset());
        final int count = (int) Math.min(Math.min(maxEntries, entriesPerFile - index), max - queueOffset);
        return file.file().copy(index * ENTRY_LENGTH, count * ENTRY_LENGTH);
    }

    /** Drops entries pointing at or past {@code logEnd} (the log was truncated there). */
    void truncate(final long logEnd) {
        long max = maxOffset;
        while (max > minOffset) {
            final ByteBuffer entry = entries(max - 1, 1);
            if (entry.remaining() == ENTRY_LENGTH && QueueEntryDescriptor.size(entry, 0) > 0
                    && QueueEntryDescriptor.logOffset(entry, 0) < logEnd) {
                break;
            }
            max--;
        }
        if (max != maxOffset) {
            LOG.info("Queue {}-{}: truncated from {} to {} (log end {})", topic, queueId, maxOffset, max, logEnd);
            final long oldMax = maxOffset;
            maxOffset = max;
            for (long q = max; q < oldMax; q++) {
                try {
                    final QueueFile file = fileFor(q, false);
                    if (file != null) {
                        write(file, (int) (q - file.firstOffset()) * ENTRY_LENGTH, 0, 0, 0);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** Forces the files written since the last flush. */
    void flush() {
        final long max = maxOffset;
        if (max == lastFlushedMax) {
            return;
        }
        for (QueueFile f : files) {
            if (f.firstOffset() + entriesPerFile > lastFlushedMax && f.firstOffset() < max) {
                f.file().force();
            }
        }
        lastFlushedMax = max;
    }

    /**
     * Retention: the log now starts at {@code logMinOffset}; moves the min offset to the first entry still in the log
     * and deletes files whose entries all point below it.
     */
    synchronized void dropBelow(final long logMinOffset) throws IOException {
        long min = minOffset;
        final long max = maxOffset;
        while (min < max) {
            final ByteBuffer entry = entries(min, 1);
            if (entry.remaining() == ENTRY_LENGTH && QueueEntryDescriptor.logOffset(entry, 0) >= logMinOffset
                    && QueueEntryDescriptor.size(entry, 0) > 0) {
                break;
            }
            min++;
            minOffset = min;
        }
        final List<QueueFile> all = new ArrayList<>(files);
        while (all.size() > 1 && all.get(0).firstOffset() + entriesPerFile <= min) {
            final QueueFile dropped = all.remove(0);
            files = FileList.copyOf(all);
            dropped.file().close();
            Files.deleteIfExists(dropped.path());
        }
    }

    /** Deletes every file of the queue. */
    synchronized void destroy() throws IOException {
        final List<QueueFile> all = files;
        files = FileList.copyOf(List.of());
        maxOffset = 0;
        minOffset = 0;
        for (QueueFile f : all) {
            f.file().close();
            Files.deleteIfExists(f.path());
        }
        Files.deleteIfExists(dir);
    }

    private QueueFile fileFor(final long queueOffset, final boolean create) throws IOException {
        final List<QueueFile> all = files;
        if (!all.isEmpty()) {
            final long first = all.get(0).firstOffset();
            if (queueOffset >= first) {
                final long index = (queueOffset - first) / entriesPerFile;
                if (index < all.size()) {
                    return all.get((int) index);
                }
            }
        }
        if (!create) {
            return null;
        }
        return createFile(queueOffset);
    }

    /** Adds files up to the one holding {@code queueOffset}; synchronized with retention replacing the list. */
    private synchronized QueueFile createFile(final long queueOffset) throws IOException {
        final List<QueueFile> all = files;
        final long firstOffset = queueOffset - queueOffset % entriesPerFile;
        if (!all.isEmpty() && firstOffset != all.get(all.size() - 1).firstOffset() + entriesPerFile) {
            if (firstOffset < all.get(0).firstOffset()) {
                throw new IOException("queue " + topic + "-" + queueId + ": offset " + queueOffset
                        + " is below the first file");
            }
        }
        Files.createDirectories(dir);
        final List<QueueFile> next = new ArrayList<>(all);
        long nextFirst = all.isEmpty() ? firstOffset : all.get(all.size() - 1).firstOffset() + entriesPerFile;
        QueueFile created = null;
        while (nextFirst <= firstOffset) {
            final Path path = dir.resolve(String.format("%020d", nextFirst * ENTRY_LENGTH));
            created = new QueueFile(nextFirst, SealableMappedFile.open(path, (long) entriesPerFile * ENTRY_LENGTH,
                    false));
            next.add(created);
            nextFirst += entriesPerFile;
        }
        if (all.isEmpty()) {
            minOffset = firstOffset + (queueOffset - firstOffset);
        }
        files = FileList.copyOf(next);
        // The files before the new ones are full (dispatcher thread, their only writer): unmap them.
        for (int i = Math.max(0, all.size() - 1); i < next.size() - 1; i++) {
            next.get(i).file().seal();
        }
        return created;
    }
}
