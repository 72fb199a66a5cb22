package io.junction.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How this node takes part in its store group, fixed at start.
 *
 * @param nodeId          this node's id, one of {@code members}
 * @param members         every replica, this node included
 * @param electionTimeout the shortest time without a leader's heartbeat before a follower stands for election (the
 *                        longest is twice that)
 * @param dataDir         the broker's data directory; the Raft log lives under {@code cluster/}
 * @param contractPort    the port of this node's contract server on its replication host ({@code
 *                        cluster.contract-port}; 0 = any free port): followers forward writes and POP there
 * @param raftLog         when the Raft log is snapshotted and purged
 */
public record ClusterSettings(String nodeId, List<ClusterMember> members, Duration electionTimeout, Path dataDir,
                              int contractPort, RaftLogLimits raftLog) {

    public ClusterSettings {
        Objects.requireNonNull(nodeId, "nodeId");
        members = List.copyOf(members);
        Objects.requireNonNull(electionTimeout, "electionTimeout");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(raftLog, "raftLog");
        if (members.stream().noneMatch(m -> m.id().equals(nodeId))) {
            throw new IllegalArgumentException("cluster.node-id " + nodeId + " is not among cluster.members "
                    + members);
        }
        if (contractPort < 0 || contractPort > 0xFFFF) {
            throw new IllegalArgumentException("cluster.contract-port must be 0 to 65535, not " + contractPort);
        }
        if (electionTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("cluster.election-timeout-ms must be at least 100, not "
                    + electionTimeout.toMillis());
        }
    }

    /** Settings with the default Raft log limits. */
    public ClusterSettings(final String nodeId, final List<ClusterMember> members, final Duration electionTimeout,
                           final Path dataDir, final int contractPort) {
        this(nodeId, members, electionTimeout, dataDir, contractPort, RaftLogLimits.DEFAULT);
    }

    /** Settings whose contract server takes any free port. */
    public ClusterSettings(final String nodeId, final List<ClusterMember> members, final Duration electionTimeout,
                           final Path dataDir) {
        this(nodeId, members, electionTimeout, dataDir, 0);
    }

    /** This node's own entry. */
    public ClusterMember self() {
        return members.stream().filter(m -> m.id().equals(nodeId)).findFirst().orElseThrow();
    }

    /** Where the cluster's own files live: the identity file and the Raft storage. */
    public Path clusterDir() {
        return dataDir.resolve("cluster");
    }
}
