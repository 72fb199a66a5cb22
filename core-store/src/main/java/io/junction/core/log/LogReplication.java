package io.junction.core.log;

import java.util.concurrent.CompletableFuture;

/**
 * Where written log bytes go before their senders are answered. A single node has none ({@link #NONE}): the appender
 * hands batches straight to the {@link LogFlusher}, as it always did. A replicated store's leader hands each written
 * range to the replication, and its senders' futures complete only once the range is committed by a majority.
 *
 * <p>Called on the appender thread, in log order: the ranges are contiguous, each starting where the previous ended.
 */
public interface LogReplication {

    /** No replication: the store is the only copy. */
    LogReplication NONE = new LogReplication() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public CompletableFuture<Void> replicate(final CommitLog log, final long from, final long to) {
            throw new IllegalStateException("a single node does not replicate");
        }

        @Override
        public long committedOffset() {
            return Long.MAX_VALUE;
        }
    };

    /** Whether ranges go through {@link #replicate} at all (false: the single-node path, untouched). */
    boolean enabled();

    /**
     * Replicates the bytes {@code [from, to)} just written to {@code log} (whole records, blank fillers included; the
     * range may cross into the next segment). The future completes once they are committed, or fails (then the
     * store refuses writes until it is reopened: its local tail may not be the group's).
     */
    CompletableFuture<Void> replicate(CommitLog log, long from, long to);

    /** The log offset below which everything is committed; consumers are shown nothing past it. */
    long committedOffset();
}
