package io.junction.cluster.contract;

import io.junction.core.group.ConsumerClient;
import java.util.List;
import java.util.Map;

/**
 * The metadata a proxy mirrors from its store group's leader ({@link Operation#MIRROR}), so that the contract's
 * synchronous reads (routes, topics, groups, key-value configs, offsets, consumer clients) are answered from memory.
 *
 * @param tables          the store's metadata tables and consumer offsets, as it exports them
 * @param queues          every queue's offset range
 * @param clients         the live consumer clients of every group that has any
 * @param retentionMillis how long the store keeps records
 */
public record MirrorSnapshot(Map<String, byte[]> tables, List<QueueRange> queues,
                             Map<String, List<ConsumerClient>> clients, long retentionMillis) {
    public MirrorSnapshot {
        tables = Map.copyOf(tables);
        queues = List.copyOf(queues);
        clients = Map.copyOf(clients);
    }

    /** One queue's readable range: {@code [min, max)}. */
    public record QueueRange(String topic, int queueId, long min, long max) {
    }
}
