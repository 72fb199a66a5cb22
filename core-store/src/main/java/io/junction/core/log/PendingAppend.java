package io.junction.core.log;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A record on its way into the log (or a control action for the appender thread), carrying where it landed once
 * written, until the flusher completes its sender's future. A batch is one pending append whose buffer holds several
 * records back to back ({@link #members} says where each starts); its queue offset is the first member's.
 */
final class PendingAppend {
    final ByteBuffer record;
    final String topic;
    final int queueId;
    final CompletableFuture<AppendResult> future;
    final Runnable control;
    /** Where each record of a batch starts in {@link #record}, relative to its position; null for one record. */
    final int[] members;
    /** Completed once written, not once forced: see {@link LogAppender#appendUnforced}. */
    final boolean unforced;
    long queueOffset;
    long physicalOffset;
    long storeTimestamp;
    boolean assigned;

    PendingAppend(final ByteBuffer record, final String topic, final int queueId,
                  final CompletableFuture<AppendResult> future, final Runnable control) {
        this(record, topic, queueId, future, control, null, false);
    }

    PendingAppend(final ByteBuffer record, final String topic, final int queueId,
                  final CompletableFuture<AppendResult> future, final Runnable control, final int[] members,
                  final boolean unforced) {
        this.members = members;
        this.unforced = unforced;
        this.record = record;
        this.topic = topic;
        this.queueId = queueId;
        this.future = future;
        this.control = control;
    }

    /** Completes the sender's future with where the record landed. */
    void complete() {
        if (future != null) {
            future.complete(new AppendResult(physicalOffset, record.remaining(), queueOffset, storeTimestamp));
        }
    }

    void fail(final Throwable failure) {
        if (future != null) {
            future.completeExceptionally(failure);
        }
    }
}
