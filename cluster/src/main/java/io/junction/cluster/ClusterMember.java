package io.junction.cluster;

import java.util.Objects;

/**
 * One replica of the store group: its id and the address its Raft RPC listens on.
 *
 * @param id   the node id ({@code cluster.node-id} of that node)
 * @param host the host its peers reach it at
 * @param port its Raft RPC port
 */
public record ClusterMember(String id, String host, int port) {

    public ClusterMember {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(host, "host");
    }

    /** {@code host:port}. */
    public String address() {
        return host + ":" + port;
    }

    @Override
    public String toString() {
        return id + "@" + address();
    }
}
