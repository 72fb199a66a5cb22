package io.junction.core.index;

import io.junction.core.io.FileList;
import io.junction.core.log.DispatchInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unique-id and key lookups: each record's {@code topic#uniqueId} and {@code topic#key} (every space-separated key)
 * map to its log offset, in a chain of {@link IndexFile}s under {@code <data>/index/}, named by their first log offset.
 *
 * <p>Answers are candidates: the caller reads each record and keeps those that really carry the key.
 */
public final class MessageIndex {
    private static final Logger LOG = LoggerFactory.getLogger(MessageIndex.class);

    /** Between the keys of {@code KEYS}. */
    private static final char KEY_SEPARATOR = ' ';

    private final Path dir;
    private final int entriesPerFile;
    private volatile List<IndexFile> files;

    private MessageIndex(final Path dir, final int entriesPerFile, final List<IndexFile> files) {
        this.dir = dir;
        this.entriesPerFile = entriesPerFile;
        this.files = FileList.copyOf(files);
    }

    public static MessageIndex open(final Path dir, final int entriesPerFile) throws IOException {
        Files.createDirectories(dir);
        final List<IndexFile> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(dir)) {
            final List<Path> paths = list.filter(p -> p.getFileName().toString().matches("\\d{20}")).sorted()
                    .toList();
            for (Path p : paths) {
                // Only the newest file is written; the others are full and stay unmapped (see IndexFile).
                final IndexFile f = IndexFile.open(p, p != paths.get(paths.size() - 1));
                if (f == null) {
                    LOG.warn("Index file {} is not valid; removing it (it is rebuilt from the log)", p);
                    Files.delete(p);
                } else {
                    files.add(f);
                }
            }
        }
        return new MessageIndex(dir, entriesPerFile, files);
    }

    /** Log offset of the last record indexed, or -1. */
    public long lastIndexedOffset() {
        final List<IndexFile> all = files;
        return all.isEmpty() ? -1 : all.get(all.size() - 1).lastLogOffset();
    }

    /** Indexes one record (dispatcher thread); a record already indexed (re-dispatch after restart) is skipped. */
    public void add(final DispatchInfo info) throws IOException {
        if (info.physicalOffset() <= lastIndexedOffset()) {
            return;
        }
        final String id = info.uniqueId();
        final boolean hasId = id != null && !id.isEmpty();
        final String keys = info.keys();
        final int count = (hasId ? 1 : 0) + keyCount(keys);
        if (count == 0) {
            return;
        }
        final List<IndexFile> all = files;
        IndexFile current = all.isEmpty() ? null : all.get(all.size() - 1);
        if (current == null || current.sealed() || !current.hasRoomFor(count)) {
            current = roll(info, count);
        }
        // Hashed from the parts: no topic#key strings, no list of them, no split of the keys.
        final String topic = info.topic();
        final long offset = info.physicalOffset();
        final long timestamp = info.storeTimestamp();
        if (hasId) {
            current.addKey(IndexKeyHash.of(topic, id), offset, timestamp);
        }
        if (keys != null) {
            for (int from = 0, to; from < keys.length(); from = to + 1) {
                to = endOfKey(keys, from);
                if (to > from) {
                    current.addKey(IndexKeyHash.of(topic, keys, from, to), offset, timestamp);
                }
            }
        }
        current.indexed(offset, timestamp);
    }

    /** Starts a new file; synchronized with retention replacing the list. */
    private synchronized IndexFile roll(final DispatchInfo info, final int keys) throws IOException {
        final IndexFile created = IndexFile.create(dir.resolve(String.format("%020d", info.physicalOffset())),
                Math.max(entriesPerFile, keys), info.physicalOffset(), info.storeTimestamp());
        final List<IndexFile> next = new ArrayList<>(files);
        next.add(created);
        files = FileList.copyOf(next);
        if (next.size() > 1) {
            next.get(next.size() - 2).seal(); // full: its pages need not stay resident
        }
        return created;
    }

    /** How many non-empty space-separated keys {@code keys} holds (0 for null). */
    private static int keyCount(final String keys) {
        if (keys == null) {
            return 0;
        }
        int n = 0;
        for (int from = 0, to; from < keys.length(); from = to + 1) {
            to = endOfKey(keys, from);
            if (to > from) {
                n++;
            }
        }
        return n;
    }

    private static int endOfKey(final String keys, final int from) {
        final int space = keys.indexOf(KEY_SEPARATOR, from);
        return space < 0 ? keys.length() : space;
    }

    /** Candidate log offsets of records of {@code topic} with {@code key}, newest first. */
    public List<Long> find(final String topic, final String key, final long beginTimestamp, final long endTimestamp,
                           final int max) {
        final List<Long> out = new ArrayList<>();
        final int hash = IndexKeyHash.of(topic, key);
        final List<IndexFile> all = files;
        for (int i = all.size() - 1; i >= 0 && out.size() < max; i--) {
            final IndexFile f = all.get(i);
            if (f.endTimestamp() < beginTimestamp - 1000 || f.beginTimestamp() > endTimestamp) {
                continue;
            }
            f.find(hash, beginTimestamp, endTimestamp, max, out);
        }
        return out;
    }

    public void flush() {
        for (IndexFile f : files) {
            f.flush();
        }
    }

    /** Retention: deletes files holding only records below {@code logMinOffset} (never the newest). */
    public synchronized void dropBelow(final long logMinOffset) throws IOException {
        List<IndexFile> all = files;
        while (all.size() > 1 && all.get(0).lastLogOffset() < logMinOffset) {
            final IndexFile dropped = all.get(0);
            all = FileList.copyOf(all.subList(1, all.size()));
            files = all;
            dropped.delete();
        }
    }

    /** Drops every file whose records start at or after {@code logEnd} (recovery after a truncated log). */
    public synchronized void truncate(final long logEnd) throws IOException {
        final List<IndexFile> all = new ArrayList<>(files);
        boolean changed = false;
        while (!all.isEmpty() && fileFirstOffset(all.get(all.size() - 1)) >= logEnd) {
            all.remove(all.size() - 1).delete();
            changed = true;
        }
        if (changed) {
            files = FileList.copyOf(all);
        }
        if (!all.isEmpty()) {
            all.get(all.size() - 1).forgetFrom(logEnd);
        }
    }

    private static long fileFirstOffset(final IndexFile f) {
        return Long.parseLong(f.path().getFileName().toString());
    }
}
