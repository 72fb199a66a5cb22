package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.ConsumerRegistry;
import io.junction.core.group.MembershipListener;
import io.junction.core.group.QueueLag;
import io.junction.core.group.QueueLocks;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.TopicConfig;
import io.junction.core.pop.PopService;
import io.junction.core.queue.ConsumeQueue;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.threads.StoreTasks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/** The store's {@link Messaging.Consumers}: registry, locks, lag and offset resets over the store's parts. */
final class StoreConsumers implements Messaging.Consumers {
    private final ConsumerRegistry registry;
    private final QueueLocks locks;
    private final ConsumerOffsets offsets;
    private final ConsumeQueueStore queues;
    private final QueueReader reader;
    private final PopService pops;
    private final Function<String, Optional<TopicConfig>> topics;
    private final Executor readPool;

    StoreConsumers(final ConsumerRegistry registry, final QueueLocks locks, final ConsumerOffsets offsets,
                   final ConsumeQueueStore queues, final QueueReader reader, final PopService pops,
                   final Function<String, Optional<TopicConfig>> topics, final Executor readPool) {
        this.registry = registry;
        this.locks = locks;
        this.offsets = offsets;
        this.queues = queues;
        this.reader = reader;
        this.pops = pops;
        this.topics = topics;
        this.readPool = readPool;
    }

    @Override
    public void heartbeat(final String group, final String clientId,
                          final Map<String, ConsumerClient.Subscription> subscriptions, final boolean broadcast) {
        registry.heartbeat(group, clientId, subscriptions, broadcast);
    }

    @Override
    public void unregister(final String group, final String clientId) {
        registry.unregister(group, clientId);
    }

    /** The groups with at least one live client. */
    List<String> liveGroups() {
        return registry.groups();
    }

    @Override
    public List<ConsumerClient> clients(final String group) {
        return registry.clients(group);
    }

    @Override
    public void addListener(final MembershipListener listener) {
        registry.addListener(listener);
    }

    @Override
    public Set<Integer> lockQueues(final String group, final String clientId, final String topic,
                                   final Set<Integer> queueIds) {
        return locks.lock(group, clientId, topic, queueIds);
    }

    @Override
    public void unlockQueues(final String group, final String clientId, final String topic,
                             final Set<Integer> queueIds) {
        locks.unlock(group, clientId, topic, queueIds);
    }

    @Override
    public SortedSet<String> committedTopics(final String group) {
        return offsets.topicsOf(group);
    }

    @Override
    public CompletableFuture<List<QueueLag>> lag(final String group, final String topic) {
        return StoreTasks.supply(readPool, () -> {
            final int queueCount = topics.apply(topic).map(TopicConfig::queueCount).orElse(0);
            final List<QueueLag> lags = new ArrayList<>(queueCount);
            for (int q = 0; q < queueCount; q++) {
                final ConsumeQueue queue = queues.find(topic, q);
                final long max = queue == null ? 0 : queue.maxOffset();
                final long min = queue == null ? 0 : queue.minOffset();
                final long committed = offsets.query(group, topic, q);
                final long from = committed < 0 ? min : Math.max(committed, min);
                final long last = queue == null || max == 0 ? -1 : reader.storeTimeAt(queue, max - 1);
                final long consumed = queue == null || committed <= min || committed > max ? -1
                        : reader.storeTimeAt(queue, committed - 1);
                lags.add(new QueueLag(q, committed, max, Math.max(0, max - from), last, consumed));
            }
            return lags;
        });
    }

    @Override
    public CompletableFuture<Map<Integer, Long>> resetOffsets(final String group, final String topic,
                                                              final long timestamp) {
        return StoreTasks.supply(readPool, () -> {
            final int queueCount = topics.apply(topic).map(TopicConfig::queueCount).orElse(0);
            final Map<Integer, Long> reset = new TreeMap<>();
            for (int q = 0; q < queueCount; q++) {
                final long offset = reader.searchOffset(topic, q, timestamp);
                offsets.commit(group, topic, q, offset);
                pops.resetQueue(group, topic, q, offset);
                reset.put(q, offset);
            }
            return reset;
        });
    }
}
