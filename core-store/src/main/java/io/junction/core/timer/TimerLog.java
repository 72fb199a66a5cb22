package io.junction.core.timer;

import io.junction.core.PullResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link TimerService} needs from the store, and nothing more: read the timer queue and a record, deliver a
 * message through the normal append path, and ask whether a copy was already delivered.
 */
public interface TimerLog {
    /** The smallest readable offset of the timer queue. */
    long timerQueueMinOffset();

    /** The offset the next timer record will get (everything below is indexed). */
    long timerQueueMaxOffset();

    /** Up to {@code max} timer records from {@code offset}; {@link PullResult#nextOffset()} is where to go on. */
    PullResult readTimerQueue(long offset, int max);

    /** The record at a log offset, or null when it is gone (retention) or unreadable. */
    StoredMessage readRecord(long logOffset);

    /** The log's write position: every record appended so far lies below it. */
    long logWriteOffset();

    /** Everything below this log offset is on disk (forced). */
    long logFlushedOffset();

    /** Appends a record to the timer queue itself (a recall marker); completes when durable under the flush mode. */
    CompletableFuture<?> appendToTimerQueue(Message record);

    /** Appends {@code message} to its (real) topic and queue; completes when durable under the flush mode. */
    CompletableFuture<?> deliver(Message message);

    /**
     * True when a message of {@code topic} with {@code uniqueId} and {@code TIMER_DELIVER_MS = deliverAt} was
     * stored after log offset {@code afterLogOffset}: that is, this timer already fired.
     */
    boolean deliveredAfter(String topic, String uniqueId, long deliverAt, long afterLogOffset);
}
