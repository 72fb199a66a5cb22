package io.junction.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.LeaderElectionManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's say over who leads its group, through Ratis' admin operations (Ratis 3.3 lets no state machine refuse
 * leadership): whether it stands for election, stepping down when it was elected while unfit to lead, and handing its
 * leadership to a follower before it stops.
 *
 * <p>{@link #standForElections} and {@link #stepDown} run on the node's role watcher only.
 */
final class LeadershipControls {
    private static final Logger LOG = LoggerFactory.getLogger(LeadershipControls.class);
    /**
     * A stopping leader waits this many election timeouts at most for its leadership transfer (it takes tens of
     * milliseconds when the follower keeps up; one that does not would be no faster than an election).
     */
    private static final long HAND_OVER_TIMEOUT_FACTOR = 1;

    private final RaftServer server;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;
    private final ClientId clientId;
    private final AtomicLong callIds;
    private final Duration electionTimeout;
    /** Whether Ratis was told not to start elections here. */
    private boolean paused;
    /** The last term this node stepped down in because it was unfit to lead. */
    private long steppedDownInTerm = -1;

    LeadershipControls(final RaftServer server, final RaftGroupId groupId, final RaftPeerId selfId,
                       final ClientId clientId, final AtomicLong callIds, final Duration electionTimeout) {
        this.server = server;
        this.groupId = groupId;
        this.selfId = selfId;
        this.clientId = clientId;
        this.callIds = callIds;
        this.electionTimeout = electionTimeout;
    }

    /**
     * Whether this node may start elections (it votes either way): a replica whose log lacks committed bytes must not
     * lead until it fetched them from a leader. Ratis' election pause: a paused follower whose leader is silent turns
     * candidate without asking for votes, and follows the next leader that contacts it. A failed change is tried
     * again at the next call.
     */
    void standForElections(final boolean stand) {
        final boolean pause = !stand;
        if (paused == pause) {
            return; // Already so.
        }
        final long callId = callIds.incrementAndGet();
        final RaftClientReply reply = server.leaderElectionManagementAsync(stand
                ? LeaderElectionManagementRequest.newResume(clientId, selfId, groupId, callId)
                : LeaderElectionManagementRequest.newPause(clientId, selfId, groupId, callId)).join();
        if (reply.isSuccess()) {
            paused = pause;
            LOG.info("Cluster node {} {}", selfId, stand ? "stands for elections again: its log is complete"
                    : "stays out of elections: its log lacks committed entries it must fetch from a leader");
        } else {
            LOG.warn("Cluster node {} could not {} its elections; next tick: {}", selfId, stand ? "resume" : "pause",
                    reply.getException());
        }
    }

    /**
     * This node was elected in {@code term} while unfit to lead (before its elections were paused, or it began
     * installing a snapshot afterwards): it steps down, once per term, so that a complete replica leads; its store
     * stays a follower's meanwhile, so it takes no writes.
     */
    void stepDown(final long term) throws IOException {
        if (steppedDownInTerm == term) {
            return;
        }
        steppedDownInTerm = term;
        LOG.warn("Cluster node {} was elected in term {} but its log is incomplete: stepping down", selfId, term);
        server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, selfId, groupId,
                callIds.incrementAndGet(), null, electionTimeout.toMillis())).whenComplete((r, e) -> {
                    if (e != null || !r.isSuccess()) {
                        LOG.warn("Stepping down failed: {}", e != null ? e.getMessage() : r.getException());
                    }
                });
    }

    /**
     * If this node leads, transfers its leadership to the responsive follower with the highest match index (that
     * follower stands for election at once instead of after an election timeout) and waits for it, at most {@link
     * #HAND_OVER_TIMEOUT_FACTOR} election timeouts. A failed transfer is logged: the others then elect a leader after
     * their election timeout, as after a crash.
     */
    void handOver() {
        if (server.getLifeCycleState() != LifeCycle.State.RUNNING) {
            return; // Never started (a refused start), or already closing.
        }
        try {
            final DivisionInfo info = server.getDivision(groupId).getInfo();
            if (!info.isLeader()) {
                return;
            }
            final long[] matches = info.getFollowerMatchIndices();
            final List<ServerRpcProto> followers = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
            String best = null;
            long bestMatch = Long.MIN_VALUE;
            for (int i = 0; i < followers.size() && i < matches.length; i++) {
                // A follower not heard from within an election timeout is down or cut off: it could not take over.
                final boolean responsive = followers.get(i).getLastRpcElapsedTimeMs() <= electionTimeout.toMillis();
                if (responsive && matches[i] > bestMatch) {
                    bestMatch = matches[i];
                    best = followers.get(i).getId().getId().toStringUtf8();
                }
            }
            if (best == null) {
                return;
            }
            final long timeoutMs = HAND_OVER_TIMEOUT_FACTOR * electionTimeout.toMillis();
            final long started = System.nanoTime();
            final RaftClientReply reply = server.transferLeadershipAsync(new TransferLeadershipRequest(clientId,
                    selfId, groupId, callIds.incrementAndGet(), RaftPeerId.valueOf(best), timeoutMs))
                    .get(timeoutMs + 1000, TimeUnit.MILLISECONDS);
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            if (reply.isSuccess()) {
                LOG.info("Cluster node {} stopping: leadership handed to {} in {} ms", selfId, best, millis);
            } else {
                LOG.warn("Cluster node {} stopping: handing its leadership to {} failed after {} ms ({}); the others "
                        + "elect a leader after their election timeout", selfId, best, millis,
                        reply.getException() == null ? "no reason given" : reply.getException().getMessage());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("Cluster node {} stopping: handing its leadership over failed ({}); the others elect a leader "
                    + "after their election timeout", selfId, e.toString());
        }
    }
}
