package io.junction.broker.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.cluster.proxy.ProxyStatus;
import io.junction.cluster.proxy.groups.GroupedProxyStatus;
import io.junction.cluster.proxy.groups.QueueSegment;
import io.junction.cluster.proxy.groups.TopicPlacement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The overview's cluster panel on a proxy: each store group it reaches (its leader, whether the proxy can serve it,
 * the age of its metadata, each store node with when it last answered) and each placed topic's logical queues as
 * their segments, oldest first, so an operator sees where a queue's messages live after scaling.
 */
final class ProxyPanel {

    /** The group's leader is known and its metadata recent: the proxy serves it. */
    static final String SERVING = "serving";
    static final String NO_LEADER = "no leader";
    static final String RETIRED = "retired";

    private ProxyPanel() {
    }

    static ObjectNode describe(final GroupedProxyStatus status) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode();
        n.put("role", status.role()).put("reachesLeader", status.reachesLeader());
        final ArrayNode groups = n.putArray("groups");
        for (final GroupedProxyStatus.Group g : status.groups()) {
            final ProxyStatus s = g.status();
            final ObjectNode group = groups.addObject().put("name", g.name()).put("added", g.added())
                    .put("retired", g.retired()).put("state", state(g)).put("leader", s.leader())
                    .put("leaderContract", s.leaderContract()).put("mirrorAgeMs", s.mirrorAgeMs());
            final ArrayNode stores = group.putArray("stores");
            s.stores().forEach(store -> stores.addObject().put("contract", store.contract())
                    .put("lastAnswerMs", store.lastAnswerMs()));
        }
        // One row per logical queue of every placed topic, in topic order.
        final ArrayNode queues = n.putArray("queues");
        for (final Map.Entry<String, String> e : new TreeMap<>(status.placements()).entrySet()) {
            final TopicPlacement placement = TopicPlacement.parse(e.getKey(), e.getValue());
            for (int q = 0; q < placement.queueCount(); q++) {
                final ObjectNode queue = queues.addObject().put("topic", e.getKey()).put("queue", q)
                        .put("closed", placement.closed(q));
                segments(placement.queue(q), queue.putArray("segments"));
            }
        }
        return n;
    }

    static String state(final GroupedProxyStatus.Group g) {
        if (g.retired()) {
            return RETIRED;
        }
        return g.status().reachesLeader() ? SERVING : NO_LEADER;
    }

    /** Each segment with the logical offsets it holds: {@code logicalEnd} -1 while it takes writes. */
    private static void segments(final List<QueueSegment> queue, final ArrayNode into) {
        for (final QueueSegment s : queue) {
            into.addObject().put("group", s.group()).put("physicalQueue", s.physicalQueue())
                    .put("logicalStart", s.logicalStart()).put("logicalEnd", s.sealedEnd()).put("open", s.open());
        }
    }
}
