package io.junction.broker.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The (consumer group, topic) pairs consumers used since the start: pulls, pops and committed offsets seen at the
 * facade. The store lists configured groups only, and a RocketMQ Remoting consumer's group need not be one; this is
 * where the lag gauges learn of it. At most {@code max} pairs are kept.
 */
final class ConsumedTopics {

    private final int max;
    private final Set<InflightTracker.GroupTopic> pairs = ConcurrentHashMap.newKeySet();

    ConsumedTopics(final int max) {
        this.max = max;
    }

    void consumed(final String group, final String topic) {
        if (group == null || topic == null) {
            return;
        }
        final InflightTracker.GroupTopic pair = new InflightTracker.GroupTopic(group, topic);
        if (!pairs.contains(pair) && pairs.size() < max) {
            pairs.add(pair);
        }
    }

    Set<InflightTracker.GroupTopic> pairs() {
        return Set.copyOf(pairs);
    }
}
