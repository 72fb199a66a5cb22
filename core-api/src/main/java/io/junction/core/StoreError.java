package io.junction.core;

/** Why the core refused or failed an operation; each front-end maps these onto its own protocol's errors. */
public enum StoreError {
    /** The topic does not exist and auto-creation is off. */
    TOPIC_NOT_FOUND,
    /** The consumer group does not exist. */
    GROUP_NOT_FOUND,
    /** A queue id outside the topic's queues. */
    QUEUE_NOT_FOUND,
    /** The topic is not writable (or readable) under its permissions. */
    PERMISSION_DENIED,
    /** The body is larger than the configured maximum. */
    MESSAGE_TOO_LARGE,
    /** A property string, topic name or other field the message cannot carry. */
    ILLEGAL_MESSAGE,
    /** An argument out of range (offset, count, name). */
    ILLEGAL_ARGUMENT,
    /** A malformed filter expression. */
    ILLEGAL_FILTER,
    /** The disk is full (or above the configured usage ratio); the send was not stored. */
    DISK_FULL,
    /** An I/O failure; the store has stopped accepting writes. */
    IO_ERROR,
    /** The store is not running (starting, stopping or stopped). */
    UNAVAILABLE,
    /** Too many requests are waiting; retry later. */
    BUSY,
    /**
     * The queue is sealed: its writes have moved to another queue or store group (a topic scaled across store
     * groups). Retriable: a proxy that meets it reads the topic's placement again and sends to the new queue.
     */
    QUEUE_SEALED
}
