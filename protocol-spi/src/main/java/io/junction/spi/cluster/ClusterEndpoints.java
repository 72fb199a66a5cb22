package io.junction.spi.cluster;

import io.junction.core.Messaging;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where every node of a cluster serves each protocol, as the nodes publish it in the replicated key-value configs, so
 * a front-end can hand its clients the whole cluster (gRPC route endpoints) and a client fails over between nodes
 * without a restart. On a single node nothing is published and {@link #addresses} is empty.
 *
 * <p>Layout of namespace {@value #NAMESPACE}: key {@value #MEMBERS_KEY} = the node ids in {@code cluster.members}
 * order, comma-separated (every node writes the same value); key {@code <node id>/<front-end name>} = that node's
 * address for that front-end as its {@link io.junction.spi.Endpoint} says it ({@code host:port}). A node publishes
 * at start and again whenever the replicated value differs from its own (a restart on other ports).
 */
public final class ClusterEndpoints {
    /** The key-value namespace the nodes publish their client-facing addresses in. */
    public static final String NAMESPACE = "junction.cluster.endpoints";
    /** The key holding the member ids. */
    public static final String MEMBERS_KEY = "members";

    private ClusterEndpoints() {
    }

    /** The key of one node's address for one front-end. */
    public static String key(final String nodeId, final String frontEnd) {
        return nodeId + "/" + frontEnd;
    }

    /**
     * Every node's published address for a front-end, in member order (a node that has not published yet is
     * missing); empty when no member list is published (a single node). Reads local state only.
     */
    public static List<String> addresses(final Messaging.KvConfigs kv, final String frontEnd) {
        final Optional<String> members = kv.get(NAMESPACE, MEMBERS_KEY);
        if (members.isEmpty()) {
            return List.of();
        }
        final List<String> addresses = new ArrayList<>();
        for (String id : members.get().split(",")) {
            if (!id.isBlank()) {
                kv.get(NAMESPACE, key(id.trim(), frontEnd)).ifPresent(addresses::add);
            }
        }
        return addresses;
    }
}
