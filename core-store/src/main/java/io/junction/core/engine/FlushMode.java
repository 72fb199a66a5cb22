package io.junction.core.engine;

/** When an appended message counts as stored. */
public enum FlushMode {
    /** After it is written to the page cache; a background flush forces it within the flush interval. */
    ASYNC,
    /** After an fsync that covers it; concurrent appends share one fsync (group commit). */
    SYNC
}
