package io.junction.core;

/** Outcome of a pull. */
public enum PullStatus {
    /** Messages were found. */
    FOUND,
    /** The offset is the queue's end: nothing new (after waiting, if asked to). */
    NO_NEW_MESSAGE,
    /** Entries were read but none matched the filter; continue from the next offset. */
    NO_MATCHED_MESSAGE,
    /** The offset is below the queue's minimum (retention removed it); continue from the minimum. */
    OFFSET_TOO_SMALL,
    /** The offset is past the queue's end; continue from the maximum. */
    OFFSET_OVERFLOW,
    /** The topic or queue does not exist. */
    NO_SUCH_QUEUE
}
