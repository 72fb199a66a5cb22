package io.junction.cluster;

import io.junction.cluster.contract.ContractServer;
import io.junction.cluster.contract.StoreNodeView;
import io.junction.cluster.contract.StoreTopology;
import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.txn.TransactionChecker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
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
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's seat in its store group: the Ratis server (RPC over Ratis' shaded Netty), the replica it drives, and a
 * role watcher that reopens the replica's store as leader once this node leads and has applied everything committed
 * before its term, and as follower once it no longer leads. Its contract server serves the replica's store to the
 * other members, and {@link #writer()} names where this node's writes go: its own store, or the leader's contract
 * server.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    private static final long ROLE_WATCH_MILLIS = 50;
    /** How often a leader ships a changed consumer-offset table to its followers. */
    private static final long OFFSETS_SHIP_MILLIS = 1000;
    /** How often a node checks that the replicated state shows its contract address (and publishes it if not). */
    private static final long PUBLISH_CHECK_MILLIS = 1000;
    /**
     * Longest wait for the Raft server to close. Ratis' close first applies every committed entry; a follower whose
     * Raft log lacks the next one (it waits for a leader's snapshot) cannot, and with no leader left to send it the
     * close never ends (seen once in a test that stopped a group's leader first). Past this the node goes on closing.
     */
    private static final long RAFT_CLOSE_MILLIS = 15_000;

    private final ClusterSettings settings;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;
    private final RaftServer server;
    private final ReplicatedStore replica;
    private final StoreStateMachine stateMachine;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final ScheduledExecutorService roleWatcher;
    /** Polls for a forwarded change to be applied here; not the role watcher, which may be busy reopening. */
    private final ScheduledExecutorService appliedPoller;
    /** Sends metadata changes made on a follower to the leader (Ratis finds it and retries across elections). */
    private final RaftClient forwarder;
    /** Serves this node's store to the other members (their forwarded writes and POP while this node leads). */
    private ContractServer contract;
    /** The other members' contract servers, for forwarding while this node follows. */
    private final LeaderContracts leaders;
    /** Publishes this node's contract address (a metadata change: may wait for the leader, so on its own thread). */
    private final ScheduledExecutorService publisher;
    /** Hands the leader's transaction check-backs to the other members' producers. */
    private final MemberTransactionChecks memberChecks;
    /** Whether this node stands for election, stepping down, handing its leadership over. */
    private final LeadershipControls leadership;
    /**
     * Told how long each commit-log range this node proposed took to be committed (the metrics' commit latency); set
     * once by the broker after start, so volatile rather than a constructor argument threaded through every start.
     */
    private volatile LongConsumer commitLatency = nanos -> { };

    private ClusterNode(final ClusterSettings settings, final StoreConfig storeConfig,
                        final Consumer<MessageStore> opened, final Map<String, String> raftOverrides)
            throws IOException {
        this.memberChecks = new MemberTransactionChecks(settings, this::store);
        this.settings = settings;
        final UUID clusterId = ClusterIdentity.claim(settings);
        this.groupId = RaftGroupId.valueOf(clusterId);
        this.selfId = RaftPeerId.valueOf(settings.nodeId());
        final List<RaftPeer> peers = new ArrayList<>();
        for (ClusterMember m : settings.members()) {
            peers.add(RaftPeer.newBuilder().setId(m.id()).setAddress(m.address()).build());
        }
        this.roleWatcher = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "junction-cluster-role");
            t.setDaemon(true);
            return t;
        });
        // Every store this node opens checks back with the other members' producers too (only a leader's checks).
        this.replica = new ReplicatedStore(storeConfig, this::submit, this::forward, store -> {
            store.addTransactionChecker(memberChecks);
            opened.accept(store);
        });
        final RaftGroup group = RaftGroup.valueOf(groupId, peers);
        final RaftProperties properties = properties(settings, storeConfig.flushMode());
        raftOverrides.forEach(properties::set);
        this.stateMachine = new StoreStateMachine(replica, this::wakeRoleWatcher, this::askLeader);
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(properties)
                // FORMAT the group's Raft storage at the first start, RECOVER it at every later one.
                .setOption(Files.isDirectory(settings.clusterDir().resolve("raft").resolve(clusterId.toString()))
                        ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
        this.leadership = new LeadershipControls(server, groupId, selfId, clientId, callIds,
                settings.electionTimeout());
        this.appliedPoller = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "junction-cluster-applied");
            t.setDaemon(true);
            return t;
        });
        this.forwarder = RaftClient.newBuilder().setRaftGroup(group).setProperties(properties).build();
        this.leaders = new LeaderContracts(storeConfig.maxMessageSize());
        this.publisher = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "junction-cluster-publish");
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
        return start(settings, storeConfig, opened, (group, half, times) -> { }, Map.of());
    }

    /**
     * Starts a node whose Ratis properties are {@code raftOverrides} over this class's own (measurements: an A/B of a
     * Ratis setting in one run, see ReplicationThroughputProbe).
     */
    static ClusterNode start(final ClusterSettings settings, final StoreConfig storeConfig,
                             final Consumer<MessageStore> opened, final Map<String, String> raftOverrides) {
        return start(settings, storeConfig, opened, (group, half, times) -> { }, raftOverrides);
    }

    /**
     * @param localProducers asks this node's front-ends' producers: the leader hands its transaction check-backs to
     *                       every member
     */
    private static ClusterNode start(final ClusterSettings settings, final StoreConfig storeConfig,
                                     final Consumer<MessageStore> opened, final TransactionChecker localProducers,
                                     final Map<String, String> raftOverrides) {
        final ClusterNode node;
        try {
            node = new ClusterNode(settings, storeConfig, opened, raftOverrides);
        } catch (IOException e) {
            throw new ClusterStartException("cannot start the cluster node " + settings.nodeId() + ": "
                    + e.getMessage(), e);
        }
        try {
            node.contract = ContractServer.start(settings.self().host(), settings.contractPort(), node.replica::store,
                    node.view(), localProducers, storeConfig.maxMessageSize());
        } catch (IllegalStateException e) {
            node.close();
            throw new ClusterStartException("cluster node " + settings.nodeId() + ": " + e.getMessage(), e);
        }
        try {
            node.server.start();
        } catch (IOException e) {
            node.close();
            throw new ClusterStartException("cannot start the cluster node " + settings.nodeId() + " on "
                    + settings.self().address() + ": " + e.getMessage(), e);
        }
        // At once, not at the first tick: a replica whose log is short must not stand for the first election.
        node.roleWatcher.execute(node::watchRole);
        node.roleWatcher.scheduleWithFixedDelay(node::watchRole, ROLE_WATCH_MILLIS, ROLE_WATCH_MILLIS,
                TimeUnit.MILLISECONDS);
        node.roleWatcher.scheduleWithFixedDelay(node::shipOffsets, OFFSETS_SHIP_MILLIS, OFFSETS_SHIP_MILLIS,
                TimeUnit.MILLISECONDS);
        node.publisher.scheduleWithFixedDelay(node::publishContractAddress, 0, PUBLISH_CHECK_MILLIS,
                TimeUnit.MILLISECONDS);
        LOG.info("Cluster node {} started: members {}, Raft on {}, contract server on {}", settings.nodeId(),
                settings.members(), settings.self().address(), node.contract.address());
        return node;
    }

    /**
     * Starts a node for the front-ends' {@link ReplicaMessaging}: it follows the replica's store, and forwards writes,
     * POP and acknowledgements to the leader while this node follows ({@link #writer()}).
     */
    public static ClusterNode start(final ClusterSettings settings, final StoreConfig storeConfig,
                                    final ReplicaMessaging messaging) {
        final ClusterNode node = start(settings, storeConfig, messaging::switchTo, messaging::checkWithProducers,
                Map.of());
        messaging.forwardWritesTo(node::writer);
        return node;
    }

    private static RaftProperties properties(final ClusterSettings settings, final FlushMode flushMode) {
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
        // Bounded log: a snapshot every N entries, then the log is purged up to it (even while a member is down:
        // it catches up from the leader's snapshot), keeping the last few entries for followers just behind.
        final RaftLogLimits limits = settings.raftLog();
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, limits.snapshotEveryEntries());
        // Each snapshot is a small note; keep the latest two.
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(Integer.MAX_VALUE, limits.snapshotEveryEntries()));
        RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, limits.keptEntries());
        // A follower the purged log no longer covers gets the leader's snapshot (a note "the log ends at E after
        // index I"), then fetches the commit log up to E and the tables itself (StoreStateMachine.reinitialize).
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
        // Message bytes are state-machine data (StoreStateMachine.data()): the Raft log keeps a log range's header
        // only. Ratis writes an entry only once its bytes are in the commit log (sync, the default), and keeps no
        // copy of them in its cache ("the state machine caches them"): the commit log is that cache, and a leader's
        // read() copies an entry's bytes from it each time it sends the entry, so the heap never holds the ranges
        // in flight to every follower.
        RaftServerConfigKeys.Log.StateMachineData.setSync(p, true);
        RaftServerConfigKeys.Log.StateMachineData.setCachingEnabled(p, true);
        // Acknowledged = committed by a majority; forced on them only in SYNC mode. In ASYNC mode no replica's store
        // forces its commit log before a send is acknowledged, so Ratis need not force its log either: an entry counts
        // as written once it is in the log file (the page cache, which survives the kill of any process), and Ratis
        // forces it on its own flush thread, off the send's path (its "unsafe flush"). Forcing on the path made every
        // commit wait for an fsync on the leader and on a follower. In SYNC mode Ratis forces its log
        // after the state machine forced the commit log (StoreStateMachine.flush), before it counts the entry.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, flushMode == FlushMode.ASYNC);
        // A follower appends a leader's entries on the thread of the RPC that brought them (Ratis' way before
        // RATIS-2235). Ratis' default chains each append behind the previous one with CompletableFuture.thenComposeAsync and no
        // executor: on a machine of 2 cores the JDK's common pool has a parallelism of 1, so every such step starts a
        // new thread (over 300 threads a second under 32 sync senders, seen by JFR), then hops to Ratis' server
        // executor: two thread hand-offs and a thread start per entry and follower. The chain only orders appends that
        // arrive concurrently (gRPC's streaming appender); the Netty appender used here sends a follower one request
        // at a time and waits for its answer. Measured in the README ("a thread started per entry").
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
        // No commit-index entries in the Raft log. Ratis' default appends one after every commit (a METADATAENTRY,
        // so that a restarted server can apply up to its last known commit before it hears from a leader): a second
        // Raft entry per log-range entry, sent to each follower in a request of its own (the Netty appender's one
        // request at a time, so the next range waits behind it), written to three Raft logs. Nothing here needs it:
        // acknowledgement is a majority's commit either way, a restarted replica applies the entries after its
        // snapshot once a leader tells it the commit index, and a new leader only once it committed an entry of its
        // own term (ClusterNode.watchRole). Measured in the README ("Commit-index entries off"): 1.9x the probe's
        // throughput.
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
        // An entry sent to a follower carries about 4 MiB of log (more when one record is larger).
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(limits.segmentBytes()));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf("16MB"));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf("17MB"));
        RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("256MB"));
        return p;
    }

    /** Proposes an entry through this node; completes once it is committed and applied here. */
    private CompletableFuture<Void> submit(final ByteBuffer entry) {
        // Only message appends count for the commit latency: metadata and offset shipments are rare and not sends.
        final boolean append = ReplicaEntry.type(entry) == ReplicaEntry.LOG_RANGE;
        final long proposed = System.nanoTime();
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
            if (append) {
                commitLatency.accept(System.nanoTime() - proposed);
            }
            return null;
        });
    }

    /**
     * Tells {@code observer} the nanoseconds from proposing each commit-log range (one appender batch of sends) to its
     * commit by a majority, as this leader learns it (Ratis answers once the entry is committed and applied here).
     * Called on Ratis' threads: the observer must be quick and must not block.
     */
    public void observeCommitLatency(final LongConsumer observer) {
        this.commitLatency = Objects.requireNonNull(observer, "observer");
    }

    /**
     * Sends an entry to the group's leader, wherever it is; completes once it is committed and applied on this
     * replica too (a caller reads its own change back locally).
     */
    private CompletableFuture<Void> forward(final ByteBuffer entry) {
        return forwarder.async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry))).thenCompose(r -> {
            if (!r.isSuccess()) {
                return CompletableFuture.failedFuture(unavailable(r.getException()));
            }
            return appliedHere(r.getLogIndex());
        });
    }

    /** A read-only query answered by the leader's state machine (a replica catching up from its snapshot). */
    private CompletableFuture<ByteBuffer> askLeader(final ByteBuffer query) {
        return forwarder.async().sendReadOnly(Message.valueOf(UnsafeByteOperations.unsafeWrap(query))).thenApply(r -> {
            if (!r.isSuccess()) {
                throw new CompletionException(unavailable(r.getException()));
            }
            return r.getMessage().getContent().asReadOnlyByteBuffer();
        });
    }

    /** Times this node caught up from the leader's snapshot since start (the leader had purged what it lacked). */
    public long snapshotInstalls() {
        return stateMachine.snapshotInstalls();
    }

    /** Log ranges whose bytes this node read back from its commit log to send them to a follower (tests). */
    long stateMachineDataReads() {
        return stateMachine.dataReads();
    }

    private CompletableFuture<Void> appliedHere(final long index) {
        final CompletableFuture<Void> applied = new CompletableFuture<>();
        final Runnable[] check = new Runnable[1];
        check[0] = () -> {
            try {
                if (server.getDivision(groupId).getInfo().getLastAppliedIndex() >= index) {
                    applied.complete(null);
                } else if (!applied.isDone()) {
                    appliedPoller.schedule(check[0], 10, TimeUnit.MILLISECONDS);
                }
            } catch (IOException | RuntimeException e) {
                applied.completeExceptionally(unavailable(e));
            }
        };
        appliedPoller.execute(check[0]);
        return applied;
    }

    private static StoreException unavailable(final Throwable cause) {
        return new StoreException(StoreError.UNAVAILABLE, "not committed by the cluster: "
                + (cause == null ? "unknown" : cause.getMessage()), cause);
    }

    private void shipOffsets() {
        try {
            replica.shipOffsets();
        } catch (RuntimeException e) {
            LOG.warn("Shipping consumer offsets failed; next time", e);
        }
    }

    /** A role change was announced: reconcile now rather than at the next tick. */
    private void wakeRoleWatcher() {
        try {
            roleWatcher.execute(this::watchRole);
        } catch (RejectedExecutionException e) {
            // Closing.
        }
    }

    private void watchRole() {
        try {
            final RaftServer.Division division = server.getDivision(groupId);
            final DivisionInfo info = division.getInfo();
            final boolean unfit = stateMachine.unfitToLead();
            leadership.standForElections(!unfit);
            if (info.isLeader() && unfit) {
                leadership.stepDown(info.getCurrentTerm());
            } else if (info.isLeader()) {
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

    /** Makes sure the replicated state shows this node's contract address; runs on the publisher thread. */
    private void publishContractAddress() {
        final String mine = LeaderContracts.addressText(contract.address());
        try {
            final MessageStore current = replica.store();
            if (current == null) {
                return;
            }
            final boolean shown = mine.equals(current.kvConfigs().get(LeaderContracts.NAMESPACE,
                    settings.nodeId()).orElse(null));
            // A replica whose log is short fetches what it lacks before it applies its next entry; in a quiet group
            // that could be long. Publishing again (the same value: idempotent) makes that entry, so it fetches now
            // and may stand for election sooner. The put returns once the entry is applied here, after the fetch.
            final boolean nudge = stateMachine.awaitingFetch();
            if (shown && !nudge) {
                return;
            }
            current.kvConfigs().put(LeaderContracts.NAMESPACE, settings.nodeId(), mine).get(30, TimeUnit.SECONDS);
            LOG.info("Cluster node {} published its contract address {}{}", settings.nodeId(), mine,
                    nudge ? " (again, so that its short log is completed from the leader)" : "");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("Publishing the contract address failed; next time", e);
        }
    }

    /**
     * Where writes, POP and acknowledgements go now: this node's store while it leads (or while it is elected but not
     * yet reopened as leader: the store then refuses them), else the leader's contract server.
     *
     * @throws StoreException UNAVAILABLE when no leader is known (an election) or the leader has not published its
     *                        contract address yet: the caller fails at once, and the client retries
     */
    public Messaging writer() {
        if (replica.leading()) {
            return replica.store();
        }
        final RaftPeerId leader;
        try {
            leader = server.getDivision(groupId).getInfo().getLeaderId();
        } catch (IOException e) {
            throw new StoreException(StoreError.UNAVAILABLE, "the cluster node is not running", e);
        }
        if (leader == null) {
            throw new StoreException(StoreError.UNAVAILABLE, "the cluster has no leader now (an election)");
        }
        if (leader.equals(selfId)) {
            return replica.store();
        }
        final String id = leader.toString();
        final String published = replica.store().kvConfigs().get(LeaderContracts.NAMESPACE, id).orElse(null);
        return leaders.client(id, published).orElseThrow(() -> new StoreException(StoreError.UNAVAILABLE,
                "the leader " + id + " has not published its contract address yet"));
    }

    /** What this node's contract server tells proxies: who leads, where the members' contract servers are. */
    private StoreNodeView view() {
        return new StoreNodeView() {
            @Override
            public StoreTopology topology() {
                RaftPeerId leader = null;
                try {
                    leader = server.getDivision(groupId).getInfo().getLeaderId();
                } catch (IOException e) {
                    // Not running (yet): no leader known.
                }
                return new StoreTopology(leader == null ? null : leader.toString(), contractAddresses());
            }

            @Override
            public Map<String, byte[]> tables() throws IOException {
                return replica.store().exportTables();
            }

            @Override
            public List<String> consumerGroups() {
                return replica.store().liveConsumerGroups();
            }
        };
    }

    /** Where this node's contract server listens. */
    public InetSocketAddress contractAddress() {
        return contract.address();
    }

    /** The contract addresses the members published, by node id (a member that did not publish yet is missing). */
    public Map<String, String> contractAddresses() {
        final Map<String, String> addresses = new TreeMap<>();
        final MessageStore current = replica.store();
        if (current != null) {
            for (ClusterMember m : settings.members()) {
                current.kvConfigs().get(LeaderContracts.NAMESPACE, m.id()).ifPresent(a -> addresses.put(m.id(), a));
            }
        }
        return addresses;
    }

    /**
     * Waits until the group has a leader and this node's store plays its part (opened as leader here if this node
     * leads): front-ends then start against a settled store.
     *
     * @throws ClusterStartException when no leader is elected in time (a majority of the members is not running)
     */
    public void awaitSettled(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                final DivisionInfo info = server.getDivision(groupId).getInfo();
                if (info.getLeaderId() != null && info.isLeader() == replica.leading()) {
                    return;
                }
                Thread.sleep(ROLE_WATCH_MILLIS);
            } catch (IOException e) {
                throw new ClusterStartException("cluster node " + settings.nodeId() + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClusterStartException("interrupted waiting for the cluster's leader", e);
            }
        }
        throw new ClusterStartException("no leader elected within " + timeout.toSeconds() + " s: is a majority of "
                + "cluster.members " + settings.members() + " running and reachable?");
    }

    /** The replica's current store (it changes when this node's role does). */
    public MessageStore store() {
        return replica.store();
    }

    /** Whether this node takes writes now: it leads its group and its store is open as leader. */
    public boolean acceptsWrites() {
        return replica.leading();
    }

    /** Times this node's store was reopened as leader or follower since start (its view of leader changes). */
    public long roleChanges() {
        return replica.roleChanges();
    }

    public ClusterSettings settings() {
        return settings;
    }

    /** What {@code GET /cluster} shows. */
    public ClusterStatus status() {
        final List<ClusterStatus.Member> members = new ArrayList<>();
        final Map<String, String> contracts = contractAddresses();
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
            final TermIndex last = division.getRaftLog().getLastEntryTermIndex();
            // Only the leader knows how far each member is behind its log.
            final long leaderLast = info.isLeader() && last != null ? last.getIndex() : -1;
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
                final long lag = leaderLast >= 0 && match >= 0 ? Math.max(0, leaderLast - match) : -1;
                members.add(new ClusterStatus.Member(m.id(), m.address(), match, lastContactMs, lag,
                        contracts.get(m.id())));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cluster status unavailable", e);
        }
        return new ClusterStatus(settings.nodeId(), role, leader, term, commitIndex, appliedIndex,
                replica.appliedEnd(), acceptsWrites(), members);
    }

    /**
     * Stops this node. A leader first hands its leadership to the most up-to-date follower (Ratis' leadership transfer:
     * that follower stands for election at once instead of after an election timeout), so a rolling restart pauses
     * the group's writes for about the new leader's store reopening rather than a whole failover.
     */
    @Override
    public void close() {
        roleWatcher.shutdownNow();
        try {
            roleWatcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        leadership.handOver();
        try {
            forwarder.close();
        } catch (IOException e) {
            LOG.warn("Closing the Raft client failed", e);
        }
        appliedPoller.shutdownNow();
        publisher.shutdownNow();
        if (contract != null) {
            contract.close();
        }
        leaders.close();
        memberChecks.close();
        closeRaftServer();
        replica.close();
    }

    private void closeRaftServer() {
        final Thread closing = new Thread(() -> {
            try {
                server.close();
            } catch (IOException e) {
                LOG.warn("Closing the Raft server failed", e);
            }
        }, "junction-cluster-close");
        closing.setDaemon(true);
        closing.start();
        try {
            closing.join(RAFT_CLOSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (closing.isAlive()) {
            LOG.warn("Cluster node {}: the Raft server did not close within {} ms (it waits to apply entries only a "
                    + "leader's snapshot would bring); closing the store anyway", settings.nodeId(),
                    RAFT_CLOSE_MILLIS);
        }
    }
}
