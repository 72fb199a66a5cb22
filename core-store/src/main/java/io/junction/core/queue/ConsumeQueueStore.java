package io.junction.core.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * All consume queues, under {@code <data>/consumequeue/<topic>/<queueId>/}.
 */
public final class ConsumeQueueStore {
    private final Path root;
    private final int entriesPerFile;
    private final Map<String, Map<Integer, ConsumeQueue>> queues = new ConcurrentHashMap<>();

    private ConsumeQueueStore(final Path root, final int entriesPerFile) {
        this.root = root;
        this.entriesPerFile = entriesPerFile;
    }

    /** Opens every queue found under {@code root}. */
    public static ConsumeQueueStore open(final Path root, final int entriesPerFile) throws IOException {
        Files.createDirectories(root);
        final ConsumeQueueStore store = new ConsumeQueueStore(root, entriesPerFile);
        try (Stream<Path> topics = Files.list(root)) {
            for (Path topicDir : topics.filter(Files::isDirectory).toList()) {
                final String topic = topicDir.getFileName().toString();
                try (Stream<Path> ids = Files.list(topicDir)) {
                    for (Path queueDir : ids.filter(Files::isDirectory).toList()) {
                        final String name = queueDir.getFileName().toString();
                        if (!name.matches("\\d{1,4}")) {
                            continue;
                        }
                        final int queueId = Integer.parseInt(name);
                        store.queues.computeIfAbsent(topic, t -> new ConcurrentHashMap<>())
                                .put(queueId, ConsumeQueue.open(topic, queueId, queueDir, entriesPerFile));
                    }
                }
            }
        }
        return store;
    }

    /** The queue, or null when nothing was ever indexed into it. */
    public ConsumeQueue find(final String topic, final int queueId) {
        final Map<Integer, ConsumeQueue> byId = queues.get(topic);
        return byId == null ? null : byId.get(queueId);
    }

    public long maxOffset(final String topic, final int queueId) {
        final ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.maxOffset();
    }

    public long minOffset(final String topic, final int queueId) {
        final ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.minOffset();
    }

    /** Writes an entry (dispatcher thread). */
    public void put(final String topic, final int queueId, final long queueOffset, final long logOffset,
                    final int size, final long tagHash) throws IOException {
        ConsumeQueue q = find(topic, queueId);
        if (q == null) {
            try {
                q = queues.computeIfAbsent(topic, t -> new ConcurrentHashMap<>()).computeIfAbsent(queueId, id -> {
                    try {
                        return ConsumeQueue.open(topic, id, root.resolve(topic).resolve(Integer.toString(id)),
                                entriesPerFile);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        q.put(queueOffset, logOffset, size, tagHash);
    }

    /** Topics that have queues on disk. */
    public Collection<String> topics() {
        return List.copyOf(queues.keySet());
    }

    /** All queues. */
    public List<ConsumeQueue> all() {
        final List<ConsumeQueue> all = new ArrayList<>();
        queues.values().forEach(m -> all.addAll(m.values()));
        return all;
    }

    /** Forces every queue written since its last flush. */
    public void flush() {
        for (ConsumeQueue q : all()) {
            q.flush();
        }
    }

    /** Drops entries pointing at or beyond {@code logEnd} in every queue (recovery). */
    public void truncate(final long logEnd) {
        for (ConsumeQueue q : all()) {
            q.truncate(logEnd);
        }
    }

    /** Retention: forgets entries pointing below the log's new start. */
    public void dropBelow(final long logMinOffset) throws IOException {
        for (ConsumeQueue q : all()) {
            q.dropBelow(logMinOffset);
        }
    }

    /** Deletes a topic's queues. */
    public void deleteTopic(final String topic) throws IOException {
        final Map<Integer, ConsumeQueue> byId = queues.remove(topic);
        if (byId != null) {
            for (ConsumeQueue q : byId.values()) {
                q.destroy();
            }
        }
        final Path dir = root.resolve(topic);
        if (Files.isDirectory(dir)) {
            try (Stream<Path> rest = Files.list(dir)) {
                if (rest.findAny().isEmpty()) {
                    Files.delete(dir);
                }
            }
        }
    }
}
