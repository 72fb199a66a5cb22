package io.junction.tenancy;

/** What an authorization is about. */
public enum ResourceKind {
    /** A topic, by name. */
    TOPIC,
    /** A consumer (or producer) group, by name. */
    GROUP,
    /** The broker itself (cluster information, routes, administration); the name is the cluster name. */
    CLUSTER
}
