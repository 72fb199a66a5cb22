package io.junction.tenancy;

/** What a principal wants to do with a resource. */
public enum Action {
    /** Send messages to a topic. */
    PUB,
    /** Receive messages from a topic, or consume as a group. */
    SUB,
    CREATE,
    UPDATE,
    DELETE,
    /** Read one resource's description (route, configuration, offsets). */
    GET,
    /** List resources of a kind. */
    LIST
}
