package io.junction.cluster;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's seat in its store group: the Ratis server (RPC over Ratis' shaded Netty), the replica it drives, and a
 * role watcher that reopens the replica's store as leader once this node leads and has applied everything committed
 * before its term, and as follower once it no longer leads.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    private static final long ROLE_WATCH_MILLIS = 50;
    /** Snapshots ("the log ends at E after index I") bound the replay at restart. */
    private static final long SNAPSHOT_EVERY_ENTRIES = 4096;

    private final ClusterSettings settings;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;
    private final RaftServer server;
    private final ReplicatedStore replica;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final ScheduledExecutorService roleWatcher;

    private ClusterNode(final ClusterSettings settings, final StoreConfig storeConfig,
                        final Consumer<MessageStore> opened) throws IOException {
        this.settings = settings;
        final UUID clusterId = ClusterIdentity.claim(settings);
        this.groupId = RaftGroupId.valueOf(clusterId);
        this.selfId = RaftPeerId.valueOf(settings.nodeId());
        final List<RaftPeer> peers = new ArrayList<>();
        for (ClusterMember m : settings.members()) {
            peers.add(RaftPeer.newBuilder().setId(m.id()).setAddress(m.address()).build());
        }
        this.replica = new ReplicatedStore(storeConfig, this::submit, opened);
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setGroup(RaftGroup.valueOf(groupId, peers))
                .setStateMachine(new StoreStateMachine(replica))
                .setProperties(properties(settings))
                .build();
        this.roleWatcher = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "junction-cluster-role");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Claims the data directory for this cluster, opens the replica's store (as follower) and joins the group.
     *
     * @param opened told each time the replica's store is (re)opened
     * @throws ClusterStartException when the directory belongs to another cluster or node, or the server cannot start
     */
    public static ClusterNode start(final ClusterSettings settings, final StoreConfig storeConfig,
                                    final Consumer<MessageStore> opened) {
        final ClusterNode node;
        try {
            node = new ClusterNode(settings, storeConfig, opened);
        } catch (IOException e) {
            throw new ClusterStartException("cannot start the cluster node " + settings.nodeId() + ": "
                    + e.getMessage(), e);
        }
        try {
            node.server.start();
        } catch (IOException e) {
            node.close();
            throw new ClusterStartException("cannot start the cluster node " + settings.nodeId() + " on "
                    + settings.self().address() + ": " + e.getMessage(), e);
        }
        node.roleWatcher.scheduleWithFixedDelay(node::watchRole, ROLE_WATCH_MILLIS, ROLE_WATCH_MILLIS,
                TimeUnit.MILLISECONDS);
        LOG.info("Cluster node {} started: members {}, Raft on {}", settings.nodeId(), settings.members(),
                settings.self().address());
        return node;
    }

    private static RaftProperties properties(final ClusterSettings settings) {
        final RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.NETTY);
        NettyConfigKeys.Server.setPort(p, settings.self().port());
        RaftServerConfigKeys.setStorageDir(p, List.of(settings.clusterDir().resolve("raft").toFile()));
        final long timeout = settings.electionTimeout().toMillis();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(timeout, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * timeout, TimeUnit.MILLISECONDS));
        // A leader that has not heard from a majority this long steps down, failing its pending entries: a
        // partitioned leader must not sit on writes it cannot commit.
        RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(p,
                TimeDuration.valueOf(2 * timeout, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, SNAPSHOT_EVERY_ENTRIES);
        // Never purge the Raft log: a lagging replica catches up from it (installing a snapshot is not built yet).
        RaftServerConfigKeys.Log.setPurgeGap(p, Integer.MAX_VALUE);
        // An entry carries about 4 MiB of log (more when one record is larger: up to the largest message).
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("64MB"));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf("16MB"));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf("17MB"));
        RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("256MB"));
        return p;
    }

    /** Proposes an entry through this node; completes once it is committed and applied here. */
    private CompletableFuture<Void> submit(final ByteBuffer entry) {
        final RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        final CompletableFuture<RaftClientReply> reply;
        try {
            reply = server.submitClientRequestAsync(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(unavailable(e));
        }
        return reply.thenApply(r -> {
            if (!r.isSuccess()) {
                throw new CompletionException(unavailable(r.getException()));
            }
            return null;
        });
    }

    private static StoreException unavailable(final Throwable cause) {
        return new StoreException(StoreError.UNAVAILABLE, "not committed by the cluster: "
                + (cause == null ? "unknown" : cause.getMessage()), cause);
    }

    private void watchRole() {
        try {
            final RaftServer.Division division = server.getDivision(groupId);
            final DivisionInfo info = division.getInfo();
            if (info.isLeader()) {
                if (info.isLeaderReady()
                        && info.getLastAppliedIndex() >= division.getRaftLog().getLastCommittedIndex()) {
                    replica.promote(info.getCurrentTerm());
                }
            } else {
                replica.demote();
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cluster role watch failed; retrying", e);
        }
    }

    /** The replica's current store (it changes when this node's role does). */
    public MessageStore store() {
        return replica.store();
    }

    /** Whether this node takes writes now: it leads its group and its store is open as leader. */
    public boolean acceptsWrites() {
        return replica.leading();
    }

    public ClusterSettings settings() {
        return settings;
    }

    /** What {@code GET /cluster} shows. */
    public ClusterStatus status() {
        final List<ClusterStatus.Member> members = new ArrayList<>();
        String role = "UNKNOWN";
        String leader = null;
        long term = -1;
        long commitIndex = -1;
        long appliedIndex = -1;
        try {
            final RaftServer.Division division = server.getDivision(groupId);
            final DivisionInfo info = division.getInfo();
            role = String.valueOf(info.getCurrentRole());
            leader = info.getLeaderId() == null ? null : info.getLeaderId().toString();
            term = info.getCurrentTerm();
            commitIndex = division.getRaftLog().getLastCommittedIndex();
            appliedIndex = info.getLastAppliedIndex();
            final RoleInfoProto roleInfo = info.getRoleInfoProto();
            final long[] matches = info.isLeader() ? info.getFollowerMatchIndices() : new long[0];
            final List<ServerRpcProto> followers = info.isLeader()
                    ? roleInfo.getLeaderInfo().getFollowerInfoList() : List.of();
            for (ClusterMember m : settings.members()) {
                long match = -1;
                long lastContactMs = -1;
                if (m.id().equals(settings.nodeId())) {
                    match = division.getRaftLog().getFlushIndex();
                } else {
                    for (int i = 0; i < followers.size() && i < matches.length; i++) {
                        if (followers.get(i).getId().getId().toStringUtf8().equals(m.id())) {
                            match = matches[i];
                            lastContactMs = followers.get(i).getLastRpcElapsedTimeMs();
                        }
                    }
                }
                members.add(new ClusterStatus.Member(m.id(), m.address(), match, lastContactMs));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cluster status unavailable", e);
        }
        return new ClusterStatus(settings.nodeId(), role, leader, term, commitIndex, appliedIndex,
                replica.appliedEnd(), acceptsWrites(), members);
    }

    @Override
    public void close() {
        roleWatcher.shutdownNow();
        try {
            roleWatcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("Closing the Raft server failed", e);
        }
        replica.close();
    }
}
