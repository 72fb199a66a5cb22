package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.MembershipListener;
import io.junction.core.group.QueueLag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Consumer clients over store groups: membership and queue locks are the metadata group's (they name logical
 * queues). Lag and offset resets of a placed topic are worked out per logical queue: a reset moves every holding
 * group's offsets (POP restarts there too) and records the logical result in the metadata group, which keeps the
 * offsets offset consumers read.
 */
final class GroupedConsumers implements Messaging.Consumers {
    private final Messaging metadata;
    private final PlacementBook book;
    private final SegmentReader reader;
    private final Function<String, Messaging> groups;

    GroupedConsumers(final Messaging metadata, final PlacementBook book, final SegmentReader reader,
                     final Function<String, Messaging> groups) {
        this.metadata = metadata;
        this.book = book;
        this.reader = reader;
        this.groups = groups;
    }

    @Override
    public void heartbeat(final String group, final String clientId,
                          final Map<String, ConsumerClient.Subscription> subscriptions, final boolean broadcast) {
        metadata.consumers().heartbeat(group, clientId, subscriptions, broadcast);
    }

    @Override
    public void unregister(final String group, final String clientId) {
        metadata.consumers().unregister(group, clientId);
    }

    @Override
    public List<ConsumerClient> clients(final String group) {
        return metadata.consumers().clients(group);
    }

    @Override
    public void addListener(final MembershipListener listener) {
        metadata.consumers().addListener(listener);
    }

    @Override
    public Set<Integer> lockQueues(final String group, final String clientId, final String topic,
                                   final Set<Integer> queues) {
        return metadata.consumers().lockQueues(group, clientId, topic, queues);
    }

    @Override
    public void unlockQueues(final String group, final String clientId, final String topic,
                             final Set<Integer> queues) {
        metadata.consumers().unlockQueues(group, clientId, topic, queues);
    }

    @Override
    public SortedSet<String> committedTopics(final String group) {
        return metadata.consumers().committedTopics(group);
    }

    /**
     * Per logical queue: the group's offset is the further of its logical one (offset consumers) and the open
     * segment's group's own (POP consumers commit there); store times are not looked up (-1).
     */
    @Override
    public CompletableFuture<List<QueueLag>> lag(final String group, final String topic) {
        final TopicPlacement placement = book.get(topic);
        if (placement == null) {
            return metadata.consumers().lag(group, topic);
        }
        final List<QueueLag> lags = new ArrayList<>();
        for (int q = 0; q < placement.queueCount(); q++) {
            final QueueSegment open = placement.openSegment(q);
            final long popped = groups.apply(open.group()).queryOffset(group, topic, open.physicalQueue());
            final long committed = Math.max(metadata.queryOffset(group, topic, q),
                    popped < 0 ? -1 : open.toLogical(popped));
            final long max = reader.maxOffset(placement, topic, q);
            final long from = committed < 0 ? reader.minOffset(placement, topic, q) : committed;
            lags.add(new QueueLag(q, committed, max, Math.max(0, max - from), -1, -1));
        }
        return CompletableFuture.completedFuture(lags);
    }

    @Override
    public CompletableFuture<Map<Integer, Long>> resetOffsets(final String group, final String topic,
                                                              final long timestamp) {
        final TopicPlacement placement = book.get(topic);
        if (placement == null) {
            return metadata.consumers().resetOffsets(group, topic, timestamp);
        }
        final List<String> holding = placement.groups();
        final List<CompletableFuture<Map<Integer, Long>>> resets = new ArrayList<>();
        for (String name : holding) {
            resets.add(groups.apply(name).consumers().resetOffsets(group, topic, timestamp));
        }
        return CompletableFuture.allOf(resets.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final Map<Integer, Long> logical = new TreeMap<>();
            for (int q = 0; q < placement.queueCount(); q++) {
                for (QueueSegment s : placement.queue(q)) {
                    final Long physical = resets.get(holding.indexOf(s.group())).join().get(s.physicalQueue());
                    if (physical != null && !logical.containsKey(q)
                            && (s.open() || physical < s.physicalEnd())) {
                        logical.put(q, s.toLogical(Math.max(physical, s.physicalStart())));
                    }
                }
            }
            logical.forEach((q, offset) -> metadata.commitOffset(group, topic, q, offset));
            return logical;
        });
    }
}
