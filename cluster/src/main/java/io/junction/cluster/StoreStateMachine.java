package io.junction.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft state machine of a store group: committed entries go to the {@link ReplicatedStore}, in order, on Ratis'
 * apply thread; role changes wake it up so it can reopen its store as leader or follower.
 *
 * <p>Snapshot: the replicated state is the commit log itself, already on disk, so a snapshot is only a note "the
 * entries up to (term, index) made the log end at offset E", written after forcing the log. At start the store is cut
 * at E and Ratis replays the entries after the index; without a snapshot, E is 0 and the whole Raft log is replayed.
 *
 * <p>The Raft log is purged up to the snapshots, so a replica that lacks purged entries cannot take them from the log.
 * Ratis then copies the leader's latest snapshot (the note) to it and reloads its state machine ({@link #reinitialize}),
 * which fetches the leader's commit log from its own applied end up to the note's log end, and the leader's tables,
 * through read-only Raft queries answered by {@link #query} on the leader. (Ratis' notification mode would let the state
 * machine fetch without the copy, but its Netty transport's log appender only copies snapshot files.)
 */
final class StoreStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(StoreStateMachine.class);
    private static final long QUERY_TIMEOUT_SECONDS = 30;
    private static final long INSTALL_TIMEOUT_SECONDS = 300;
    private static final long INSTALL_RETRY_MILLIS = 500;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final ReplicatedStore replica;
    private final Runnable roleChanged;
    private final Function<ByteBuffer, CompletableFuture<ByteBuffer>> askLeader;
    private final AtomicLong installs = new AtomicLong();
    /** A log end recorded by an installed snapshot that the log does not reach yet (see initialize); else -1. */
    private volatile long unfetchedLogEnd = -1;
    /** Fetching the leader's log and tables for an installed snapshot (see reinitialize). */
    private volatile boolean installing;

    /**
     * @param roleChanged wakes the node's role watcher: a role, or whether this replica may lead, changed (called on
     *                    Ratis' threads: must not block)
     * @param askLeader   sends a read-only {@link SnapshotQuery} to the group's leader
     */
    StoreStateMachine(final ReplicatedStore replica, final Runnable roleChanged,
                      final Function<ByteBuffer, CompletableFuture<ByteBuffer>> askLeader) {
        this.replica = replica;
        this.roleChanged = roleChanged;
        this.askLeader = askLeader;
    }

    /**
     * Whether this replica must not lead now: its log lacks committed bytes it must fetch from a leader (it ends before
     * its last snapshot's offset, or a leader's snapshot is being installed), or it broke. A leader answers from its own
     * log, so a short one would serve (and build on) a log with a hole, and fetch the hole from itself.
     */
    boolean unfitToLead() {
        return unfetchedLogEnd >= 0 || installing || replica.isBroken();
    }

    /** Whether this replica's log ends before its last snapshot's offset and waits for an entry to fetch the rest. */
    boolean awaitingFetch() {
        return unfetchedLogEnd >= 0;
    }

    /** Snapshots of the leader installed here since start (a replica the leader's log no longer covered). */
    long snapshotInstalls() {
        return installs.get();
    }

    @Override
    public void initialize(final RaftServer server, final RaftGroupId groupId, final RaftStorage raftStorage)
            throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        final SingleFileSnapshotInfo snapshot = storage.getLatestSnapshot();
        if (snapshot != null) {
            setLastAppliedTermIndex(snapshot.getTermIndex());
        }
        final long logEnd = snapshot == null ? 0 : logEndOf(snapshot);
        if (replica.open(logEnd) < logEnd) {
            // Ratis recorded the leader's snapshot, but the crash came before its log range was all here: fetch the
            // rest before applying the entries after the snapshot.
            unfetchedLogEnd = logEnd;
        }
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    /** The log end a snapshot's note records. */
    private static long logEndOf(final SingleFileSnapshotInfo snapshot) throws IOException {
        try (DataInputStream in = new DataInputStream(Files.newInputStream(snapshot.getFile().getPath()))) {
            return in.readLong();
        }
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(final TransactionContext trx) {
        final LogEntryProto entry = trx.getLogEntry();
        try {
            if (unfetchedLogEnd >= 0) {
                fetchFromLeader(unfetchedLogEnd);
                unfetchedLogEnd = -1;
                // It may stand for election again.
                roleChanged.run();
            }
            final ByteBuffer payload = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
            replica.apply(entry.getTerm(), payload);
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            return CompletableFuture.completedFuture(Message.EMPTY);
        } catch (IOException | RuntimeException e) {
            // The replica cannot follow its group any more; it refuses everything from now on (see ReplicatedStore).
            replica.broken(e);
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public long takeSnapshot() throws IOException {
        final TermIndex applied = getLastAppliedTermIndex();
        if (applied == null || applied.getIndex() == RaftLog.INVALID_LOG_INDEX) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        // Runs on the apply thread between two entries, so the log ends exactly where the applied index left it.
        writeSnapshot(applied, replica.forceAppliedEnd());
        return applied.getIndex();
    }

    private void writeSnapshot(final TermIndex at, final long logEnd) throws IOException {
        final File file = storage.getSnapshotFile(at.getTerm(), at.getIndex());
        final File temp = new File(file.getPath() + ".tmp");
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(temp.toPath()))) {
            out.writeLong(logEnd);
        }
        Files.move(temp.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), null), at));
    }

    /** A replica catching up asks the leader (this node) for a range of its log or its tables. */
    @Override
    public CompletableFuture<Message> query(final Message request) {
        final ByteBuffer in = request.getContent().asReadOnlyByteBuffer();
        try {
            final ByteBuffer answer = switch (in.get(in.position())) {
                case SnapshotQuery.LOG -> SnapshotQuery.logAnswer(replica.store().copyLog(
                        in.getLong(in.position() + 1), in.getLong(in.position() + 9), SnapshotQuery.LOG_CHUNK_BYTES));
                case SnapshotQuery.TABLES -> SnapshotQuery.tablesAnswer(replica.store().exportTables());
                default -> throw new IOException("unknown query " + in.get(in.position()));
            };
            return CompletableFuture.completedFuture(Message.valueOf(UnsafeByteOperations.unsafeWrap(answer)));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Ratis installed a leader's snapshot here (this replica lacked entries the leader had purged): the note says where
     * the leader's log ended at that point. Fetch from the leader the commit log from this replica's applied end up to
     * there (applied as Raft entries are) and its metadata tables and consumer offsets (their changes were in the purged
     * entries); Ratis then continues with the entries after the snapshot. Runs on Ratis' apply thread, which applies
     * nothing meanwhile; a leader that cannot be reached is asked again until {@link #INSTALL_TIMEOUT_SECONDS}.
     */
    @Override
    public void reinitialize() throws IOException {
        storage.loadLatestSnapshot();
        final SingleFileSnapshotInfo snapshot = storage.getLatestSnapshot();
        if (snapshot == null) {
            throw new IOException("no snapshot to reload");
        }
        final long logEnd = logEndOf(snapshot);
        LOG.info("Catching up from the leader's snapshot at {} (log end {})", snapshot.getTermIndex(), logEnd);
        installing = true;
        roleChanged.run();
        try {
            fetchFromLeader(logEnd);
        } finally {
            installing = false;
            roleChanged.run();
        }
        setLastAppliedTermIndex(snapshot.getTermIndex());
        installs.incrementAndGet();
        LOG.info("Installed the leader's snapshot at {}: log end {}", snapshot.getTermIndex(), logEnd);
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    /** Fetches the leader's log up to {@code logEnd} and its tables; asks again until the install timeout. */
    private void fetchFromLeader(final long logEnd) throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(INSTALL_TIMEOUT_SECONDS);
        while (true) {
            try {
                replica.installLog(logEnd, (from, to) -> SnapshotQuery.readLog(ask(SnapshotQuery.log(from, to))));
                replica.replaceTables(SnapshotQuery.readTables(ask(SnapshotQuery.tables())));
                break;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    replica.broken(e);
                    throw e;
                }
                LOG.warn("Catching up from the leader's snapshot failed; asking again: {}", e.getMessage());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(INSTALL_RETRY_MILLIS));
            }
        }
        replica.forceAppliedEnd();
    }

    private ByteBuffer ask(final ByteBuffer query) throws IOException {
        try {
            return askLeader.apply(query).get(QUERY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted asking the leader", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("asking the leader failed: " + e.getMessage(), e);
        }
    }

    /** Ratis pauses the state machine before it reloads it at an installed snapshot. */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    @Override
    public void close() throws IOException {
        super.close();
    }

    @Override
    public void notifyLeaderChanged(final RaftGroupMemberId memberId, final RaftPeerId newLeaderId) {
        roleChanged.run();
    }

    @Override
    public void notifyLeaderReady() {
        roleChanged.run();
    }
}
