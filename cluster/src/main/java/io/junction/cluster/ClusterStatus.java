package io.junction.cluster;

import java.util.List;

/**
 * A snapshot of this node's view of its group, as {@code GET /cluster} shows it.
 *
 * @param node           this node's id
 * @param role           LEADER, FOLLOWER, CANDIDATE (Raft's) or UNKNOWN
 * @param leader         the leader's id as this node knows it, or null
 * @param term           the current Raft term
 * @param commitIndex    the last Raft index this node knows to be committed
 * @param appliedIndex   the last Raft index applied to this node's store
 * @param appliedLogEnd  the commit-log offset the applied entries reach
 * @param acceptsWrites  whether this node takes sends now (it leads, its store is open as leader)
 * @param members        every member, with its replication progress where known
 */
public record ClusterStatus(String node, String role, String leader, long term, long commitIndex, long appliedIndex,
                            long appliedLogEnd, boolean acceptsWrites, List<Member> members) {

    /**
     * One member.
     *
     * @param id            its node id
     * @param address       its Raft address
     * @param matchIndex    the last Raft index known to be on its disk (the leader knows every member's; a follower
     *                      only its own), -1 when unknown
     * @param lastContactMs milliseconds since the leader last heard from it, -1 when unknown
     * @param lagEntries    Raft entries the leader's log holds past its match index (0 once it caught up); the leader
     *                      knows every member's, a follower none: -1
     * @param contract      the address of its contract server (where followers forward), null until it published it
     */
    public record Member(String id, String address, long matchIndex, long lastContactMs, long lagEntries,
                         String contract) {
    }
}
