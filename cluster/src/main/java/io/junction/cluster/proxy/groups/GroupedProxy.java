package io.junction.cluster.proxy.groups;

import io.junction.cluster.proxy.ProxyNode;
import io.junction.cluster.proxy.ProxyStatus;
import io.junction.core.Messaging;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A proxy over one or more store groups: one {@link ProxyNode} per group (each follows its group's leader and mirrors
 * its metadata), the front-ends holding {@link #messaging()}. With one group that is the group's own contract, exactly
 * as before groups existed; with several, a {@link GroupedMessaging} over them.
 */
public final class GroupedProxy implements AutoCloseable {
    private final Map<String, ProxyNode> nodes;
    private final Messaging messaging;

    private GroupedProxy(final Map<String, ProxyNode> nodes) {
        this.nodes = nodes;
        if (nodes.size() == 1) {
            this.messaging = nodes.values().iterator().next().messaging();
        } else {
            final Map<String, Messaging> groups = new LinkedHashMap<>();
            nodes.forEach((name, node) -> groups.put(name, node.messaging()));
            this.messaging = new GroupedMessaging(groups);
        }
    }

    /**
     * Reaches every group (its leader and a first metadata snapshot), in order.
     *
     * @throws io.junction.cluster.ClusterStartException when a group's leader does not answer in time
     */
    public static GroupedProxy start(final List<StoreGroup> groups, final int maxMessageSize,
                                     final Duration settleTimeout) {
        final Map<String, ProxyNode> nodes = new LinkedHashMap<>();
        try {
            for (StoreGroup group : groups) {
                nodes.put(group.name(), ProxyNode.start(group.contracts(), maxMessageSize, settleTimeout));
            }
        } catch (RuntimeException e) {
            nodes.values().forEach(ProxyNode::close);
            throw e;
        }
        return new GroupedProxy(nodes);
    }

    public Messaging messaging() {
        return messaging;
    }

    /** Whether every group's leader is known and its metadata recent. */
    public boolean reachesLeader() {
        return nodes.values().stream().allMatch(ProxyNode::reachesLeader);
    }

    /**
     * What {@code GET /cluster} shows: with one group the group's {@link ProxyStatus}; with several a
     * {@link GroupedProxyStatus} (each group's status and every placed topic's placement).
     */
    public Object status() {
        if (nodes.size() == 1) {
            return nodes.values().iterator().next().status();
        }
        final List<GroupedProxyStatus.Group> groups = new ArrayList<>();
        nodes.forEach((name, node) -> groups.add(new GroupedProxyStatus.Group(name, node.status())));
        return new GroupedProxyStatus("PROXY", reachesLeader(), groups,
                ((GroupedMessaging) messaging).placements());
    }

    @Override
    public void close() {
        nodes.values().forEach(ProxyNode::close);
    }
}
