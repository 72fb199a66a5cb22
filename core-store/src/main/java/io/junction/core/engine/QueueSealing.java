package io.junction.core.engine;

import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.PullRequest;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.log.LogAppender;
import io.junction.core.queue.ConsumeQueueStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Seals physical queues: the write fence of scaling a topic across store groups. The appender seals the queue in log
 * order and answers its end; a record in {@link #TOPIC} then makes the seal durable, and it is only answered once
 * that record is (so in a replicated group, once a majority has it). Opening the store replays those records, so a
 * restarted store, and a follower reopened as leader, refuse the same writes and answer the same ends.
 */
final class QueueSealing {
    /** The system topic holding one record per seal (queue 0). */
    static final String TOPIC = "rmq_sys_junction_queue_seals";
    static final String SEALED_TOPIC = "SEALED_TOPIC";
    static final String SEALED_QUEUE = "SEALED_QUEUE";
    static final String SEALED_END = "SEALED_END";
    private static final int REPLAY_BATCH = 256;

    private final LogAppender appender;
    private final Function<String, Optional<TopicConfig>> topicLookup;
    private final Function<Message, CompletableFuture<?>> appendSystemRecord;
    /** Answers the reads parked at a queue's end: after a seal nothing more comes, they go on elsewhere. */
    private final BiConsumer<String, Integer> wakeReaders;

    QueueSealing(final LogAppender appender, final Function<String, Optional<TopicConfig>> topicLookup,
                 final Function<Message, CompletableFuture<?>> appendSystemRecord,
                 final BiConsumer<String, Integer> wakeReaders) {
        this.wakeReaders = wakeReaders;
        this.appender = appender;
        this.topicLookup = topicLookup;
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
            return appendSystemRecord.apply(record(topic, queueId, end)).thenApply(stored -> end);
        });
    }

    /** The queue's final end, or -1 while it is open. */
    long sealedEnd(final String topic, final int queueId) {
        return appender.sealedEnd(topic, queueId);
    }

    /** Restores every seal recorded in the log (at open, before the appender starts). */
    void replay(final ConsumeQueueStore queues, final QueueReader reader) {
        long offset = queues.minOffset(TOPIC, 0);
        final long end = queues.maxOffset(TOPIC, 0);
        while (offset < end) {
            final PullResult batch = reader.read(new PullRequest(null, TOPIC, 0, offset, REPLAY_BATCH, null, 0));
            for (StoredMessage m : batch.messages()) {
                final String topic = m.properties().get(SEALED_TOPIC);
                final String queue = m.properties().get(SEALED_QUEUE);
                final String sealedEnd = m.properties().get(SEALED_END);
                if (topic != null && queue != null && sealedEnd != null) {
                    appender.restoreSeal(topic, Integer.parseInt(queue), Long.parseLong(sealedEnd));
                }
            }
            if (batch.nextOffset() <= offset) {
                break;
            }
            offset = batch.nextOffset();
        }
    }

    private static Message record(final String topic, final int queueId, final long end) {
        return Message.builder(TOPIC).queueId(0).body(new byte[0]).property(SEALED_TOPIC, topic)
                .property(SEALED_QUEUE, Integer.toString(queueId)).property(SEALED_END, Long.toString(end)).build();
    }
}
