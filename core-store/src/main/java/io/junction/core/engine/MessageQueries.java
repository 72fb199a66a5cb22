package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.index.MessageIndex;
import io.junction.core.log.CommitLog;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.MessageIds;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.queue.ConsumeQueue;
import io.junction.core.queue.ConsumeQueueStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Message lookups: by log offset, unique or offset id, key, and store-time range. Index answers are candidates;
 * each is read and checked before it is returned. Blocking (reads the disk): callers run it on the reader pool.
 */
final class MessageQueries {
    private final CommitLog log;
    private final MessageIndex index;
    private final QueueReader reader;
    private final ConsumeQueueStore queues;
    private final Function<String, Optional<TopicConfig>> topics;

    MessageQueries(final CommitLog log, final MessageIndex index, final QueueReader reader,
                   final ConsumeQueueStore queues, final Function<String, Optional<TopicConfig>> topics) {
        this.log = log;
        this.index = index;
        this.reader = reader;
        this.queues = queues;
        this.topics = topics;
    }

    /** The verified record at a log offset. */
    Optional<StoredMessage> at(final long offset) {
        if (offset < 0) {
            return Optional.empty();
        }
        final ByteBuffer record = log.lookupRecord(offset);
        return record == null ? Optional.empty() : Optional.of(RecordCodec.decode(record));
    }

    Optional<StoredMessage> byId(final String topic, final String messageId) {
        for (long offset : index.find(topic, messageId, 0, Long.MAX_VALUE, 32)) {
            final Optional<StoredMessage> m = at(offset);
            if (m.isPresent() && messageId.equals(m.get().uniqueId()) && topic.equals(m.get().topic())) {
                return m;
            }
        }
        return at(MessageIds.commitLogOffsetOf(messageId)).filter(m -> m.offsetMessageId().equals(messageId));
    }

    /** Offsets (newest first) of records of {@code topic} carrying {@code uniqueId}, unverified. */
    List<Long> candidates(final String topic, final String uniqueId) {
        return index.find(topic, uniqueId, 0, Long.MAX_VALUE, 32);
    }

    List<StoredMessage> byKey(final String topic, final String key, final int max, final long begin,
                              final long end) {
        final List<StoredMessage> found = new ArrayList<>();
        for (long offset : index.find(topic, key, begin, end, Math.max(max, 1) * 4)) {
            at(offset).filter(m -> m.topic().equals(topic) && hasKey(m, key)
                    && m.storeTimestamp() >= begin && m.storeTimestamp() <= end).ifPresent(found::add);
            if (found.size() >= max) {
                break;
            }
        }
        return found;
    }

    private static boolean hasKey(final StoredMessage m, final String key) {
        if (key.equals(m.uniqueId())) {
            return true;
        }
        final String keys = m.keys();
        if (keys == null) {
            return false;
        }
        for (String k : keys.split(" ")) {
            if (k.equals(key)) {
                return true;
            }
        }
        return false;
    }

    List<StoredMessage> byTime(final String topic, final long begin, final long end, final int max) {
        final List<StoredMessage> found = new ArrayList<>();
        final int queueCount = topics.apply(topic).map(TopicConfig::queueCount).orElse(0);
        for (int q = 0; q < queueCount; q++) {
            final ConsumeQueue queue = queues.find(topic, q);
            if (queue == null) {
                continue;
            }
            long offset = reader.searchOffset(topic, q, begin);
            int taken = 0;
            scan:
            while (offset < queue.maxOffset() && taken < max) {
                final PullResult r = reader.read(new PullRequest(null, topic, q, offset, 32, null, 0));
                if (r.messages().isEmpty()) {
                    break;
                }
                for (StoredMessage m : r.messages()) {
                    if (m.storeTimestamp() > end) {
                        break scan;
                    }
                    found.add(m);
                    taken++;
                }
                offset = r.nextOffset();
            }
        }
        found.sort(Comparator.comparingLong(StoredMessage::storeTimestamp));
        return found.size() > max ? List.copyOf(found.subList(0, max)) : found;
    }

    /** Store time of a queue's oldest readable message, or -1. */
    long earliestStoreTime(final String topic, final int queueId) {
        final ConsumeQueue q = queues.find(topic, queueId);
        return q == null || q.minOffset() >= q.maxOffset() ? -1L : reader.storeTimeAt(q, q.minOffset());
    }
}
