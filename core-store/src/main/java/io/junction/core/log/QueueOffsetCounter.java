package io.junction.core.log;

import java.util.HashMap;
import java.util.Map;
import java.util.function.ToLongBiFunction;

/**
 * Hands out the next queue offset of each (topic, queue) at append time, so every record carries its final queue
 * offset and re-indexing a record always writes the same queue entry. Appender thread only.
 */
final class QueueOffsetCounter {
    private final Map<String, long[]> next = new HashMap<>();
    private final ToLongBiFunction<String, Integer> initial;

    /** @param initial where a queue not seen since start continues: the end of its consume queue */
    QueueOffsetCounter(final ToLongBiFunction<String, Integer> initial) {
        this.initial = initial;
    }

    long next(final String topic, final int queueId) {
        long[] counters = next.get(topic);
        if (counters == null || counters.length <= queueId) {
            counters = grow(topic, counters, queueId);
        }
        return counters[queueId]++;
    }

    /** The offset the next record of a queue would get, handing out nothing. */
    long peek(final String topic, final int queueId) {
        long[] counters = next.get(topic);
        if (counters == null || counters.length <= queueId) {
            counters = grow(topic, counters, queueId);
        }
        return counters[queueId];
    }

    /** Hands out {@code count} consecutive offsets of a queue at once (a batch) and returns the first. */
    long reserve(final String topic, final int queueId, final int count) {
        final long first = next(topic, queueId);
        next.get(topic)[queueId] += count - 1;
        return first;
    }

    /** Gives back offsets handed out for records that were not written. */
    void rollback(final String topic, final int queueId, final long offset) {
        final long[] counters = next.get(topic);
        if (counters != null && queueId < counters.length && counters[queueId] > offset) {
            counters[queueId] = offset;
        }
    }

    /** Forgets a topic (deleted): its queues start again from their consume queues' end. */
    void forget(final String topic) {
        next.remove(topic);
    }

    private long[] grow(final String topic, final long[] old, final int queueId) {
        final int oldLength = old == null ? 0 : old.length;
        final long[] counters = new long[Math.max(queueId + 1, oldLength)];
        if (old != null) {
            System.arraycopy(old, 0, counters, 0, oldLength);
        }
        for (int q = oldLength; q < counters.length; q++) {
            counters[q] = initial.applyAsLong(topic, q);
        }
        next.put(topic, counters);
        return counters;
    }
}
