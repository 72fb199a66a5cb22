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
     * @param contract      the address of its contract server (where followers forward), null until it published it
     */
    public record Member(String id, String address, long matchIndex, long lastContactMs, String contract) {
    }

    /** The status as one JSON object. */
    public String toJson() {
        final StringBuilder json = new StringBuilder(256).append('{');
        field(json, "node", node).append(',');
        field(json, "role", role).append(',');
        field(json, "leader", leader).append(',');
        json.append("\"term\":").append(term).append(',');
        json.append("\"commitIndex\":").append(commitIndex).append(',');
        json.append("\"appliedIndex\":").append(appliedIndex).append(',');
        json.append("\"appliedLogEnd\":").append(appliedLogEnd).append(',');
        json.append("\"acceptsWrites\":").append(acceptsWrites).append(",\"members\":[");
        for (int i = 0; i < members.size(); i++) {
            final Member m = members.get(i);
            json.append(i == 0 ? "{" : ",{");
            field(json, "id", m.id()).append(',');
            field(json, "address", m.address()).append(',');
            json.append("\"matchIndex\":").append(m.matchIndex()).append(',');
            json.append("\"lastContactMs\":").append(m.lastContactMs()).append(',');
            field(json, "contract", m.contract()).append('}');
        }
        return json.append("]}").toString();
    }

    private static StringBuilder field(final StringBuilder json, final String name, final String value) {
        json.append('"').append(name).append("\":");
        if (value == null) {
            return json.append("null");
        }
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"');
    }
}
