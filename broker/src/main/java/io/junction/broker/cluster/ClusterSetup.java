package io.junction.broker.cluster;

import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.lifecycle.BrokerStartException;
import io.junction.cluster.ClusterMember;
import io.junction.cluster.ClusterMembers;
import io.junction.cluster.ClusterSettings;
import io.junction.cluster.RaftLogLimits;
import io.junction.cluster.proxy.groups.StoreGroup;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/** Reads the {@code cluster.*} keys. */
public final class ClusterSetup {

    private ClusterSetup() {
    }

    /**
     * The node's role, checked against the other cluster keys.
     *
     * @throws BrokerStartException (exit code 1) for an unknown role or keys that do not fit it: a proxy without
     *                              store contracts or with a node id, a store node without a node id, store
     *                              contracts on a node that is not a proxy
     */
    public static NodeRole role(final BrokerConfig config) throws BrokerStartException {
        final String value = config.string(ConfigKeys.CLUSTER_ROLE);
        final NodeRole role = NodeRole.parse(value);
        if (role == null) {
            throw new BrokerStartException("cluster.role: all, store or proxy, not '" + value + "'", null);
        }
        final boolean hasNodeId = !config.string(ConfigKeys.CLUSTER_NODE_ID).isBlank();
        final boolean hasContracts = !storeContracts(config).isEmpty()
                || !config.string(ConfigKeys.CLUSTER_STORE_GROUPS).isBlank();
        switch (role) {
            case PROXY -> {
                if (!hasContracts) {
                    throw new BrokerStartException("cluster.role=proxy needs cluster.store-contracts (the store "
                            + "nodes' contract servers as host:port, comma-separated) or cluster.store-groups", null);
                }
                if (!storeContracts(config).isEmpty() && !config.string(ConfigKeys.CLUSTER_STORE_GROUPS).isBlank()) {
                    throw new BrokerStartException("cluster.store-contracts and cluster.store-groups: set one (the "
                            + "first is the one-group form of the second)", null);
                }
                if (hasNodeId) {
                    throw new BrokerStartException("cluster.role=proxy joins no store group: leave cluster.node-id "
                            + "empty", null);
                }
            }
            case STORE -> {
                if (!hasNodeId) {
                    throw new BrokerStartException("cluster.role=store needs cluster.node-id and cluster.members", null);
                }
            }
            default -> { }
        }
        if (role != NodeRole.PROXY && hasContracts) {
            throw new BrokerStartException("cluster.store-contracts and cluster.store-groups are for "
                    + "cluster.role=proxy, not " + value, null);
        }
        return role;
    }

    /** The store nodes' contract addresses a proxy starts from ({@code cluster.store-contracts}). */
    public static List<String> storeContracts(final BrokerConfig config) {
        return Arrays.stream(config.string(ConfigKeys.CLUSTER_STORE_CONTRACTS).split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /**
     * The store groups a proxy serves over: {@code cluster.store-groups}, or the one group (named
     * {@value StoreGroup#DEFAULT_NAME}) of {@code cluster.store-contracts}. The first is the metadata group.
     *
     * @throws BrokerStartException (exit code 1) for a malformed list: a name not {@code [a-z0-9-]+} or listed twice,
     *                              a group without addresses, an address not {@code host:port}
     */
    public static List<StoreGroup> storeGroups(final BrokerConfig config) throws BrokerStartException {
        final String text = config.string(ConfigKeys.CLUSTER_STORE_GROUPS);
        try {
            if (text.isBlank()) {
                return List.of(StoreGroup.single(storeContracts(config)));
            }
            return StoreGroup.parseList(text);
        } catch (final IllegalArgumentException e) {
            throw new BrokerStartException((text.isBlank() ? "cluster.store-contracts: " : "cluster.store-groups: ")
                    + e.getMessage(), e);
        }
    }

    /**
     * This node's cluster settings, or null when {@code cluster.node-id} is empty (a single node).
     *
     * @throws BrokerStartException (exit code 1) when the members are malformed or do not include this node
     */
    public static ClusterSettings settings(final BrokerConfig config) throws BrokerStartException {
        final String nodeId = config.string(ConfigKeys.CLUSTER_NODE_ID).trim();
        if (nodeId.isEmpty()) {
            return null;
        }
        try {
            final List<ClusterMember> members = ClusterMembers.parse(config.string(ConfigKeys.CLUSTER_MEMBERS));
            return new ClusterSettings(nodeId, members,
                    Duration.ofMillis(config.intValue(ConfigKeys.CLUSTER_ELECTION_TIMEOUT_MS)), config.dataDir(),
                    config.port(ConfigKeys.CLUSTER_CONTRACT_PORT), raftLogLimits(config));
        } catch (final IllegalArgumentException e) {
            throw new BrokerStartException("cluster: " + e.getMessage(), e);
        }
    }

    /** {@code cluster.snapshot-interval-entries}, {@code cluster.log-keep-entries}, {@code cluster.log-segment-size}. */
    static RaftLogLimits raftLogLimits(final BrokerConfig config) {
        return new RaftLogLimits(config.intValue(ConfigKeys.CLUSTER_SNAPSHOT_INTERVAL_ENTRIES),
                config.intValue(ConfigKeys.CLUSTER_LOG_KEEP_ENTRIES),
                config.intSize(ConfigKeys.CLUSTER_LOG_SEGMENT_SIZE));
    }
}
