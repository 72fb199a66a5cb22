package io.junction.core.log;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sealed queues of the log and the final end of each. Written on the appender thread (in log order) or before it
 * starts; read by any thread (an answer to "is it sealed, where does it end").
 */
final class QueueSeals {
    private final Map<String, Map<Integer, Long>> ends = new ConcurrentHashMap<>();
    /** Read on every batch: the common case, no seal at all, costs one volatile read. */
    private volatile boolean empty = true;

    /** Seals a queue at {@code end} unless it is sealed already; returns its end. */
    long seal(final String topic, final int queueId, final long end) {
        final long sealed = ends.computeIfAbsent(topic, t -> new ConcurrentHashMap<>()).computeIfAbsent(queueId,
                q -> end);
        empty = false;
        return sealed;
    }

    /** The queue's final end, or -1 while it is open. */
    long end(final String topic, final int queueId) {
        final Map<Integer, Long> queues = ends.get(topic);
        if (queues == null) {
            return -1;
        }
        final Long end = queues.get(queueId);
        return end == null ? -1 : end;
    }

    boolean isEmpty() {
        return empty;
    }

    /** Forgets a deleted topic's seals: a topic made again under its name starts open. */
    void forget(final String topic) {
        ends.remove(topic);
    }
}
