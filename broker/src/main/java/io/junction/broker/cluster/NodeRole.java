package io.junction.broker.cluster;

import java.util.Locale;

/** What a broker process runs ({@code cluster.role}). */
public enum NodeRole {
    /** Front-ends, and a replica when {@code cluster.node-id} is set (else today's single node). */
    ALL,
    /** A replica of its store group only: no client listeners, no console; HTTP health, metrics and /cluster. */
    STORE,
    /** Front-ends only, over a store group reached through {@code cluster.store-contracts}: no replica, no data. */
    PROXY;

    /** The role named by a {@code cluster.role} value; null for none of them. */
    static NodeRole parse(final String value) {
        for (NodeRole role : values()) {
            if (role.name().toLowerCase(Locale.ROOT).equals(value.trim().toLowerCase(Locale.ROOT))) {
                return role;
            }
        }
        return null;
    }

    /** Whether the role runs front-ends. */
    public boolean servesClients() {
        return this != STORE;
    }
}
