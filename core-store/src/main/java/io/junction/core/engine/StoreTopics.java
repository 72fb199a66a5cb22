package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.log.LogAppender;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.KvConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicNames;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.threads.StoreTasks;
import java.io.IOException;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Topic administration; metadata writes run on the admin thread, never the caller's. Deleting a topic deletes what
 * belongs to it: its offsets, queues, seals and its key-value items ({@link SystemNames#TOPIC_SCOPED_KV}).
 */
final class StoreTopics implements Messaging.TopicAdmin {
    private final DurableTable<TopicConfig> table;
    private final ConsumerOffsets offsets;
    /** Key-value items keyed by topic ({@link SystemNames#TOPIC_SCOPED_KV}), deleted with their topic. */
    private final DurableTable<KvConfig> kvTable;
    private final LogAppender appender;
    private final ConsumeQueueStore queues;
    private final Executor adminPool;
    private final int defaultQueueCount;
    /** Supplied late: sealing appends its record through the send path, made after this. */
    private final Supplier<QueueSealing> sealing;

    StoreTopics(final DurableTable<TopicConfig> table, final ConsumerOffsets offsets,
                final DurableTable<KvConfig> kvTable, final LogAppender appender, final ConsumeQueueStore queues,
                final Executor adminPool, final int defaultQueueCount, final Supplier<QueueSealing> sealing) {
        this.sealing = sealing;
        this.table = table;
        this.offsets = offsets;
        this.kvTable = kvTable;
        this.appender = appender;
        this.queues = queues;
        this.adminPool = adminPool;
        this.defaultQueueCount = defaultQueueCount;
    }

    /** The topic, created with the default queue count if missing (auto-creation on first send). */
    CompletableFuture<TopicConfig> createIfAbsent(final String name) {
        return createIfAbsent(name, defaultQueueCount);
    }

    CompletableFuture<TopicConfig> createIfAbsent(final String name, final int queueCount) {
        return createIfAbsent(TopicConfig.of(name, queueCount));
    }

    @Override
    public CompletableFuture<TopicConfig> createIfAbsent(final TopicConfig topic) {
        final Optional<TopicConfig> existing = table.get(topic.name());
        if (existing.isPresent()) {
            return CompletableFuture.completedFuture(existing.get());
        }
        return StoreTasks.supply(adminPool, () -> {
            TopicNames.check("topic", topic.name());
            try {
                return table.putIfAbsent(topic);
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot create topic " + topic.name() + ": "
                        + e.getMessage(), e);
            }
        });
    }

    @Override
    public CompletableFuture<TopicConfig> createOrUpdate(final TopicConfig topic) {
        return StoreTasks.supply(adminPool, () -> {
            TopicNames.check("topic", topic.name());
            try {
                table.put(topic);
                return topic;
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot save topic " + topic.name() + ": "
                        + e.getMessage(), e);
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> delete(final String topic) {
        return StoreTasks.supply(adminPool, () -> {
            try {
                table.get(topic).ifPresent(t -> sealing.get().forgetTopic(topic, t.queueCount()));
                final boolean removed = table.remove(topic);
                offsets.remove(null, topic);
                // Whatever deletes the topic (any protocol, the admin API, a proxy forwarding it), its items go too.
                for (String namespace : SystemNames.TOPIC_SCOPED_KV) {
                    kvTable.remove(KvConfig.id(namespace, topic));
                }
                appender.forgetTopic(topic).join();
                queues.deleteTopic(topic);
                return removed;
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot delete topic " + topic + ": " + e.getMessage(),
                        e);
            }
        });
    }

    @Override
    public CompletableFuture<Long> sealQueue(final String topic, final int queueId) {
        return sealing.get().seal(topic, queueId);
    }

    @Override
    public Optional<TopicConfig> get(final String topic) {
        return table.get(topic);
    }

    @Override
    public Collection<TopicConfig> list() {
        return table.all();
    }
}
