package io.junction.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
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

/**
 * The Raft state machine of a store group: committed entries go to the {@link ReplicatedStore}, in order, on Ratis'
 * apply thread; role changes wake it up so it can reopen its store as leader or follower.
 *
 * <p>Snapshot: the replicated state is the commit log itself, already on disk, so a snapshot is only a note "the
 * entries up to (term, index) made the log end at offset E", written after forcing the log. At start the store is cut
 * at E and Ratis replays the entries after the index; without a snapshot, E is 0 and the whole Raft log is replayed.
 */
final class StoreStateMachine extends BaseStateMachine {
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final ReplicatedStore replica;
    private final Runnable roleChanged;
    private volatile long snapshotLogEnd;

    /** @param roleChanged wakes the node's role watcher (called on Ratis' threads: must not block) */
    StoreStateMachine(final ReplicatedStore replica, final Runnable roleChanged) {
        this.replica = replica;
        this.roleChanged = roleChanged;
    }

    @Override
    public void initialize(final RaftServer server, final RaftGroupId groupId, final RaftStorage raftStorage)
            throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        final SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
        if (latest != null) {
            try (DataInputStream in = new DataInputStream(Files.newInputStream(latest.getFile().getPath()))) {
                snapshotLogEnd = in.readLong();
            }
            setLastAppliedTermIndex(latest.getTermIndex());
        }
        replica.open(snapshotLogEnd);
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(final TransactionContext trx) {
        final LogEntryProto entry = trx.getLogEntry();
        try {
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
        final long logEnd = replica.forceAppliedEnd();
        final File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
        final File temp = new File(file.getPath() + ".tmp");
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(temp.toPath()))) {
            out.writeLong(logEnd);
        }
        Files.move(temp.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), null), applied));
        snapshotLogEnd = logEnd;
        return applied.getIndex();
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
