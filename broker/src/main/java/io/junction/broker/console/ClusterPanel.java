package io.junction.broker.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.cluster.ClusterStatus;

/**
 * The overview's cluster panel: what {@code GET /cluster} shows, each member with a {@code state} to read at a glance,
 * and {@code silentAfterMs}, after which the leader counts a silent member unreachable.
 */
final class ClusterPanel {

    static final String LEADER = "leader";
    /** The leader has not heard from it for longer than the election timeout: the rule by which Ratis gives up. */
    static final String UNREACHABLE = "unreachable";
    /** The leader's log holds entries it has not written. */
    static final String BEHIND = "behind";
    static final String IN_SYNC = "in sync";
    /** Seen from a follower, which knows no member's progress but its own. */
    static final String UNKNOWN = "unknown";

    private ClusterPanel() {
    }

    static ObjectNode describe(final ClusterStatus status, final long silentAfterMs) {
        final ObjectNode n = JsonReplies.JSON.valueToTree(status);
        n.put("silentAfterMs", silentAfterMs);
        final ArrayNode members = n.putArray("members");
        for (final ClusterStatus.Member m : status.members()) {
            final ObjectNode member = JsonReplies.JSON.valueToTree(m);
            member.put("state", state(status, m, silentAfterMs));
            members.add(member);
        }
        return n;
    }

    static String state(final ClusterStatus status, final ClusterStatus.Member m, final long silentAfterMs) {
        if (m.id().equals(status.leader())) {
            return LEADER;
        }
        if (!"LEADER".equals(status.role())) {
            return UNKNOWN;
        }
        if (m.lastContactMs() < 0 || m.lastContactMs() > silentAfterMs) {
            return UNREACHABLE;
        }
        return m.lagEntries() > 0 ? BEHIND : IN_SYNC;
    }
}
