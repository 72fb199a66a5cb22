package io.junction.cluster.proxy.groups;

import java.util.Map;
import java.util.Set;

/**
 * What one POP of a topic for a consumer group may take from: the topic's placement (null: the topic lives wholly on
 * the metadata group) and, by store group, the physical queues it must leave alone for now ({@link SeamHolds}).
 */
record PopScope(TopicPlacement placement, Map<String, Set<Integer>> held) {
    PopScope {
        held = Map.copyOf(held);
    }

    /** The physical queues of {@code group} the POP leaves alone. */
    Set<Integer> heldOn(final String group) {
        return held.getOrDefault(group, Set.of());
    }
}
