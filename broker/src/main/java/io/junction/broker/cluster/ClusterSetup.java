package io.junction.broker.cluster;

import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.lifecycle.BrokerStartException;
import io.junction.cluster.ClusterMember;
import io.junction.cluster.ClusterMembers;
import io.junction.cluster.ClusterSettings;
import io.junction.cluster.RaftLogLimits;
import java.time.Duration;
import java.util.List;

/** Reads the {@code cluster.*} keys. */
public final class ClusterSetup {

    private ClusterSetup() {
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
