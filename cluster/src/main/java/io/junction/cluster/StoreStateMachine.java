package io.junction.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
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
 *
 * <p>Message bytes are written once: through Ratis' data API ({@link #data}) a log-range entry keeps only its header
 * (offset, length, CRC) in the Raft log; {@link #startTransaction} on the leader moves the bytes beside it as
 * state-machine data, {@link #write} puts them straight into each replica's commit log before the entry is persisted,
 * {@link #read} serves them from the leader's commit log when a follower needs the entry again (Ratis keeps no copy),
 * {@link #truncate} cuts a follower's log where Ratis truncates uncommitted entries, and {@link #flush} forces the
 * commit log before Ratis forces its own (SYNC flush mode). Writes and truncations run on one thread, in Ratis' order.
 */
final class StoreStateMachine extends BaseStateMachine implements StateMachine.DataApi {
    private static final Logger LOG = LoggerFactory.getLogger(StoreStateMachine.class);
    private static final long QUERY_TIMEOUT_SECONDS = 30;
    private static final long INSTALL_TIMEOUT_SECONDS = 300;
    private static final long INSTALL_RETRY_MILLIS = 500;
    private static final long WRITE_WAIT_SECONDS = 60;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final ReplicatedStore replica;
    private final Runnable roleChanged;
    private final Function<ByteBuffer, CompletableFuture<ByteBuffer>> askLeader;
    private final AtomicLong installs = new AtomicLong();
    private final AtomicLong dataReads = new AtomicLong();
    /** A log end recorded by an installed snapshot that the log does not reach yet (see initialize); else -1. */
    private volatile long unfetchedLogEnd = -1;
    /** Fetching the leader's log and tables for an installed snapshot (see reinitialize). */
    private volatile boolean installing;
    /** Writes, truncations and flushes of state-machine data, one at a time in the order Ratis asks for them. */
    /**
     * Writes not done yet, by entry index. A follower may apply an entry as soon as Ratis has it in its log cache,
     * before its bytes are written: the apply waits for this write (never fetching what is on its way).
     */
    private final Map<Long, CompletableFuture<Void>> writesInFlight = new ConcurrentHashMap<>();
    private final ExecutorService dataWriter = Executors.newSingleThreadExecutor(r -> {
        final Thread t = new Thread(r, "junction-cluster-data");
        t.setDaemon(true);
        return t;
    });

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

    /** Entries whose bytes Ratis read back from this replica's commit log to send them (see {@link #read}). */
    long dataReads() {
        return dataReads.get();
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
            awaitWritten(entry.getIndex());
            replica.apply(entry.getTerm(), entry.getIndex(), payload, this::readLeaderLog);
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            return CompletableFuture.completedFuture(Message.EMPTY);
        } catch (IOException | RuntimeException e) {
            // The replica cannot follow its group any more; it refuses everything from now on (see ReplicatedStore).
            replica.broken(e);
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The leader proposes a log range with its bytes; the Raft log keeps only its header, the bytes become the entry's
     * state-machine data (a slice of the proposal, not a copy).
     */
    @Override
    public TransactionContext startTransaction(final RaftClientRequest request) throws IOException {
        final ByteString content = request.getMessage().getContent();
        final TransactionContext.Builder trx = TransactionContext.newBuilder().setStateMachine(this)
                .setClientRequest(request);
        if (!content.isEmpty() && content.byteAt(ReplicaEntry.TYPE_OFFSET) == ReplicaEntry.LOG_RANGE) {
            final ByteBuffer proposed = content.asReadOnlyByteBuffer();
            trx.setLogData(UnsafeByteOperations.unsafeWrap(ReplicaEntry.rangeHeader(proposed)))
                    .setStateMachineData(content.substring(ReplicaEntry.HEADER_LENGTH));
        }
        return trx.build();
    }

    @Override
    public StateMachine.DataApi data() {
        return this;
    }

    /** The header of a log-range entry, or null for entries without state-machine data. */
    private static ReplicaEntry.Range rangeOf(final LogEntryProto entry) {
        if (!entry.hasStateMachineLogEntry()) {
            return null;
        }
        final ByteString logData = entry.getStateMachineLogEntry().getLogData();
        if (logData.isEmpty() || logData.byteAt(ReplicaEntry.TYPE_OFFSET) != ReplicaEntry.LOG_RANGE) {
            return null;
        }
        return ReplicaEntry.range(logData.asReadOnlyByteBuffer());
    }

    @Override
    public CompletableFuture<?> write(final LogEntryProto entry) {
        final ReplicaEntry.Range range = rangeOf(entry);
        if (range == null) {
            return CompletableFuture.completedFuture(null);
        }
        final ByteBuffer bytes = entry.getStateMachineLogEntry().getStateMachineEntry().getStateMachineData()
                .asReadOnlyByteBuffer();
        if (bytes.remaining() != range.length() || ReplicaEntry.crc(bytes) != range.crc()) {
            return CompletableFuture.failedFuture(new IOException("the bytes of entry " + entry.getIndex()
                    + " do not match its header"));
        }
        final CompletableFuture<Void> written = onDataWriter(() -> replica.writeAhead(entry.getTerm(),
                entry.getIndex(), range, bytes, this::readLeaderLog));
        writesInFlight.put(entry.getIndex(), written);
        written.whenComplete((ok, failure) -> writesInFlight.remove(entry.getIndex(), written));
        return written;
    }

    /** Waits for the write of entry {@code index}'s bytes, if one is under way (a failed one: the apply finds out). */
    private void awaitWritten(final long index) throws IOException {
        final CompletableFuture<Void> written = writesInFlight.get(index);
        if (written == null) {
            return;
        }
        try {
            written.get(WRITE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the bytes of entry " + index, e);
        } catch (ExecutionException e) {
            LOG.warn("Writing the bytes of entry {} failed: {}", index, e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IOException("the bytes of entry " + index + " were not written within " + WRITE_WAIT_SECONDS
                    + " s", e);
        }
    }

    @Override
    public CompletableFuture<?> write(final LogEntryProto entry, final TransactionContext context) {
        return write(entry);
    }

    /** Ratis sends an entry whose bytes it did not keep (a follower that lags, or a resend): from the commit log. */
    @Override
    public CompletableFuture<ByteString> read(final LogEntryProto entry) {
        final ReplicaEntry.Range range = rangeOf(entry);
        if (range == null) {
            return CompletableFuture.failedFuture(new IOException("entry " + entry.getIndex()
                    + " has no state-machine data"));
        }
        try {
            final ByteBuffer bytes = replica.readRange(range);
            dataReads.incrementAndGet();
            return CompletableFuture.completedFuture(UnsafeByteOperations.unsafeWrap(bytes));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<ByteString> read(final LogEntryProto entry, final TransactionContext context) {
        return read(entry);
    }

    @Override
    public CompletableFuture<Void> flush(final long logIndex) {
        if (!replica.forcesAhead()) {
            // ASYNC flush mode: nothing to force, so no hop to the data thread.
            return CompletableFuture.completedFuture(null);
        }
        return onDataWriter(replica::flushAhead);
    }

    @Override
    public CompletableFuture<Void> truncate(final long logIndex) {
        return onDataWriter(() -> replica.truncateAhead(logIndex));
    }

    private interface DataTask {
        void run() throws IOException;
    }

    /** Runs a data task on the writer thread; a failed one breaks the replica (Ratis stops its log too). */
    private CompletableFuture<Void> onDataWriter(final DataTask task) {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            dataWriter.execute(() -> {
                try {
                    task.run();
                    done.complete(null);
                } catch (IOException | RuntimeException e) {
                    replica.broken(e);
                    done.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new IOException("the state machine is closed", e));
        }
        return done;
    }

    /** Reads a range of the leader's log (a read-only query to it), whole records from {@code from}. */
    private ByteBuffer readLeaderLog(final long from, final long to) throws IOException {
        return SnapshotQuery.readLog(ask(SnapshotQuery.log(from, to)));
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
        SingleFileSnapshotInfo snapshot = storage.getLatestSnapshot();
        if (snapshot == null) {
            throw new IOException("no snapshot to reload");
        }
        long logEnd;
        installing = true;
        roleChanged.run();
        try {
            while (true) {
                logEnd = logEndOf(snapshot);
                LOG.info("Catching up from the leader's snapshot at {} (log end {})", snapshot.getTermIndex(), logEnd);
                fetchFromLeader(logEnd);
                // Ratis may install a newer snapshot of the leader's meanwhile and purge its Raft log up to it, but its
                // request to reload again is lost: its apply thread marks itself running once this returns, and takes
                // the applied index from the snapshot this machine reports. Reporting the older one left the entry
                // after it missing from the log for good, and that thread spinning on it (seen once, cluster tests in
                // two JVMs), so catch up to the newest snapshot here.
                storage.loadLatestSnapshot();
                final SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
                if (latest == null || latest.getIndex() <= snapshot.getIndex()) {
                    break;
                }
                snapshot = latest;
            }
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
                replica.installLog(logEnd, this::readLeaderLog);
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
        dataWriter.shutdownNow();
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
