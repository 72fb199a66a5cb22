package io.junction.core.engine;

import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.PullRequest;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.core.log.LogAppender;
import io.junction.core.queue.ConsumeQueueStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Seals physical queues: the write fence of scaling a topic across store groups. The appender seals the queue in log
 * order and answers its end; a record in {@link #TOPIC} then makes the seal durable, and it is only answered once
 * that record is (so in a replicated group, once a majority has it). Opening the store replays those records, so a
 * restarted store, and a follower reopened as leader, refuse the same writes and answer the same ends.
 *
 * <p>A seal lasts as long as its topic, longer than the log's retention: {@link #TOPIC} is a compacted topic keyed
 * by {@code topic/queue}, so retention carries each seal's record forward instead of deleting it, and deleting a
 * topic writes a tombstone for each of its sealed queues, so a topic made again under the name starts open (also
 * after a restart).
 */
final class QueueSealing {
    /** The system topic holding one record per seal (queue 0). */
    static final String TOPIC = "rmq_sys_junction_queue_seals";
    static final String SEALED_TOPIC = "SEALED_TOPIC";
    static final String SEALED_QUEUE = "SEALED_QUEUE";
    static final String SEALED_END = "SEALED_END";
    private static final int REPLAY_BATCH = 256;
    /** The seal records' topic: one queue, compacted, so retention keeps the latest record of each sealed queue. */
    static final TopicConfig TOPIC_CONFIG = new TopicConfig(TOPIC, 1, TopicType.NORMAL, TopicConfig.PERM_READ_WRITE,
            Map.of(TopicConfig.CLEANUP_POLICY, TopicConfig.COMPACT));

    private final LogAppender appender;
    private final Function<String, Optional<TopicConfig>> topicLookup;
    private final Function<TopicConfig, CompletableFuture<TopicConfig>> createTopic;
    private final Function<Message, CompletableFuture<?>> appendSystemRecord;
    /** Answers the reads parked at a queue's end: after a seal nothing more comes, they go on elsewhere. */
    private final BiConsumer<String, Integer> wakeReaders;

    QueueSealing(final LogAppender appender, final Function<String, Optional<TopicConfig>> topicLookup,
                 final Function<TopicConfig, CompletableFuture<TopicConfig>> createTopic,
                 final Function<Message, CompletableFuture<?>> appendSystemRecord,
                 final BiConsumer<String, Integer> wakeReaders) {
        this.wakeReaders = wakeReaders;
        this.appender = appender;
        this.topicLookup = topicLookup;
        this.createTopic = createTopic;
        this.appendSystemRecord = appendSystemRecord;
    }

    /** Seals the queue and answers its final end once the seal is durable. */
    CompletableFuture<Long> seal(final String topic, final int queueId) {
        final Optional<TopicConfig> config = topicLookup.apply(topic);
        if (config.isEmpty()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.TOPIC_NOT_FOUND,
                    "topic " + topic + " does not exist"));
        }
        if (queueId < 0 || queueId >= config.get().queueCount()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.QUEUE_NOT_FOUND, "queue " + queueId
                    + " of topic " + topic + " does not exist"));
        }
        return appender.seal(topic, queueId).thenCompose(end -> {
            wakeReaders.accept(topic, queueId);
            return createTopic.apply(TOPIC_CONFIG)
                    .thenCompose(t -> appendSystemRecord.apply(record(topic, queueId, end)))
                    .thenApply(stored -> end);
        });
    }

    /**
     * Ends the seals of a topic being deleted ({@code queueCount} queues): a tombstone for each sealed queue, so
     * neither a replay nor retention's compaction brings them back. Blocks until they are stored (admin pool).
     */
    void forgetTopic(final String topic, final int queueCount) {
        final List<CompletableFuture<?>> tombstones = new ArrayList<>();
        for (int q = 0; q < queueCount; q++) {
            if (appender.sealedEnd(topic, q) >= 0) {
                tombstones.add(appendSystemRecord.apply(Message.builder(TOPIC).queueId(0).body(new byte[0])
                        .keys(key(topic, q)).property(SEALED_TOPIC, topic).property(SEALED_QUEUE, Integer.toString(q))
                        .property(MessageProperties.TOMBSTONE, "true").build()));
            }
        }
        CompletableFuture.allOf(tombstones.toArray(CompletableFuture[]::new)).join();
    }

    /** The queue's final end, or -1 while it is open. */
    long sealedEnd(final String topic, final int queueId) {
        return appender.sealedEnd(topic, queueId);
    }

    /**
     * Restores every seal recorded in the log (at open, before the appender starts): the records in log order, a
     * tombstone ending the seal before it, so a deleted topic's seals stay gone.
     */
    void replay(final ConsumeQueueStore queues, final QueueReader reader) {
        final Map<String, StoredSeal> seals = new LinkedHashMap<>();
        long offset = queues.minOffset(TOPIC, 0);
        final long end = queues.maxOffset(TOPIC, 0);
        while (offset < end) {
            final PullResult batch = reader.read(new PullRequest(null, TOPIC, 0, offset, REPLAY_BATCH, null, 0));
            for (StoredMessage m : batch.messages()) {
                final String topic = m.properties().get(SEALED_TOPIC);
                final String queue = m.properties().get(SEALED_QUEUE);
                if (topic == null || queue == null) {
                    continue;
                }
                final String sealedEnd = m.properties().get(SEALED_END);
                if ("true".equals(m.properties().get(MessageProperties.TOMBSTONE))) {
                    seals.remove(key(topic, Integer.parseInt(queue)));
                } else if (sealedEnd != null) {
                    seals.put(key(topic, Integer.parseInt(queue)), new StoredSeal(topic, Integer.parseInt(queue),
                            Long.parseLong(sealedEnd)));
                }
            }
            if (batch.nextOffset() <= offset) {
                break;
            }
            offset = batch.nextOffset();
        }
        seals.values().forEach(s -> appender.restoreSeal(s.topic(), s.queueId(), s.end()));
    }

    private record StoredSeal(String topic, int queueId, long end) {
    }

    /** The compaction key of a queue's seal records. */
    private static String key(final String topic, final int queueId) {
        return topic + "/" + queueId;
    }

    private static Message record(final String topic, final int queueId, final long end) {
        return Message.builder(TOPIC).queueId(0).body(new byte[0]).keys(key(topic, queueId))
                .property(SEALED_TOPIC, topic).property(SEALED_QUEUE, Integer.toString(queueId))
                .property(SEALED_END, Long.toString(end)).build();
    }
}
