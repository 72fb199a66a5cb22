package io.junction.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Which cluster and node a data directory belongs to. Written at the first start in cluster mode; checked at every
 * later start, so that a directory copied from another cluster or node, or started with other members, is refused
 * rather than mixed into a Raft group it never belonged to.
 *
 * <p>The cluster id is derived from the member list (ids and addresses, in id order), so three nodes configured with
 * the same members agree on it without talking to each other; it is also the Raft group id.
 */
public final class ClusterIdentity {
    static final String FILE = "identity.properties";

    private ClusterIdentity() {
    }

    /** The cluster id the members imply. */
    public static UUID clusterId(final List<ClusterMember> members) {
        final String canonical = members.stream().sorted(Comparator.comparing(ClusterMember::id))
                .map(ClusterMember::toString).collect(Collectors.joining(","));
        return UUID.nameUUIDFromBytes(("junction-cluster:" + canonical).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes the identity file if there is none, else checks it.
     *
     * @throws ClusterStartException when the directory belongs to another cluster or another node
     */
    public static UUID claim(final ClusterSettings settings) {
        final UUID id = clusterId(settings.members());
        final Path file = settings.clusterDir().resolve(FILE);
        try {
            if (Files.exists(file)) {
                final Properties stored = new Properties();
                try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    stored.load(in);
                }
                final String storedCluster = stored.getProperty("cluster-id", "");
                final String storedNode = stored.getProperty("node-id", "");
                if (!storedCluster.equals(id.toString())) {
                    throw new ClusterStartException("the data directory " + settings.dataDir()
                            + " belongs to another cluster (members " + stored.getProperty("members", "?")
                            + "), not to " + settings.members());
                }
                if (!storedNode.equals(settings.nodeId())) {
                    throw new ClusterStartException("the data directory " + settings.dataDir()
                            + " belongs to node " + storedNode + " of this cluster, not to " + settings.nodeId());
                }
                return id;
            }
            Files.createDirectories(settings.clusterDir());
            final Properties identity = new Properties();
            identity.setProperty("cluster-id", id.toString());
            identity.setProperty("node-id", settings.nodeId());
            identity.setProperty("members", settings.members().toString());
            final Path temp = file.resolveSibling(FILE + ".tmp");
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
                identity.store(out, "Junction cluster identity: do not edit or copy to another node");
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            return id;
        } catch (IOException e) {
            throw new ClusterStartException("cannot read or write " + file + ": " + e.getMessage(), e);
        }
    }
}
