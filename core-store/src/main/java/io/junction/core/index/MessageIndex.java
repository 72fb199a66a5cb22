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
        final List<String> keys = keysOf(info);
        if (keys.isEmpty()) {
            return;
        }
        final List<IndexFile> all = files;
        IndexFile current = all.isEmpty() ? null : all.get(all.size() - 1);
        if (current == null || current.sealed() || !current.hasRoomFor(keys.size())) {
            current = roll(info, keys.size());
        }
        current.add(keys, info.physicalOffset(), info.storeTimestamp());
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

    private static List<String> keysOf(final DispatchInfo info) {
        final List<String> keys = new ArrayList<>(2);
        final String id = info.uniqueId();
        if (id != null && !id.isEmpty()) {
            keys.add(key(info.topic(), id));
        }
        final String k = info.keys();
        if (k != null) {
            for (String one : k.split(" ")) {
                if (!one.isEmpty()) {
                    keys.add(key(info.topic(), one));
                }
            }
        }
        return keys;
    }

    static String key(final String topic, final String key) {
        return topic + '#' + key;
    }

    /** Candidate log offsets of records of {@code topic} with {@code key}, newest first. */
    public List<Long> find(final String topic, final String key, final long beginTimestamp, final long endTimestamp,
                           final int max) {
        final List<Long> out = new ArrayList<>();
        final String full = key(topic, key);
        final List<IndexFile> all = files;
        for (int i = all.size() - 1; i >= 0 && out.size() < max; i--) {
            final IndexFile f = all.get(i);
            if (f.endTimestamp() < beginTimestamp - 1000 || f.beginTimestamp() > endTimestamp) {
                continue;
            }
            f.find(full, beginTimestamp, endTimestamp, max, out);
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
