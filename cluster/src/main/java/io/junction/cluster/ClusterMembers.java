package io.junction.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Parses {@code cluster.members}: {@code n1@host:port,n2@host:port,n3@host:port}. */
public final class ClusterMembers {
    /** Letters, digits, '-' and '_': the id names a Raft peer and a directory, so nothing else. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private ClusterMembers() {
    }

    /**
     * The members, in the order given.
     *
     * @throws IllegalArgumentException with a one-line reason when the list is empty, an entry is malformed, or an
     *                                  id or address appears twice
     */
    public static List<ClusterMember> parse(final String value) {
        final List<ClusterMember> members = new ArrayList<>();
        final Set<String> ids = new HashSet<>();
        final Set<String> addresses = new HashSet<>();
        for (final String raw : value.split(",")) {
            final String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            final ClusterMember member = parseOne(entry);
            if (!ids.add(member.id())) {
                throw new IllegalArgumentException("node id " + member.id() + " appears twice");
            }
            if (!addresses.add(member.address())) {
                throw new IllegalArgumentException("address " + member.address() + " appears twice");
            }
            members.add(member);
        }
        if (members.isEmpty()) {
            throw new IllegalArgumentException("no members (expected n1@host:port,n2@host:port,...)");
        }
        return List.copyOf(members);
    }

    private static ClusterMember parseOne(final String entry) {
        final int at = entry.indexOf('@');
        final int colon = entry.lastIndexOf(':');
        if (at <= 0 || colon < at + 2 || colon == entry.length() - 1) {
            throw new IllegalArgumentException("'" + entry + "' is not id@host:port");
        }
        final String id = entry.substring(0, at);
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("'" + id + "' is not a node id (letters, digits, '-', '_')");
        }
        final int port;
        try {
            port = Integer.parseInt(entry.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + entry + "': the port is not a number", e);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + entry + "': port " + port + " outside 1-65535");
        }
        return new ClusterMember(id, entry.substring(at + 1, colon), port);
    }
}
