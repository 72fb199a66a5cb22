package io.junction.core.pop;

import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** What POP needs from the store: narrow on purpose, so POP never reaches into storage classes. */
public interface PopStore {
    Optional<TopicConfig> topic(String name);

    /** The topic, created with {@code queues} queues when missing. */
    CompletableFuture<TopicConfig> ensureTopic(String name, int queues);

    /** The group's configuration, or empty when unknown and groups are not created on first use. */
    Optional<GroupConfig> group(String name);

    /** Reads a queue from an offset (no waiting). */
    PullResult read(String topic, int queueId, long offset, int max, MessageFilter filter);

    long minOffset(String topic, int queueId);

    /** The offset the queue's next message will get (0 for a queue that does not exist yet). */
    long maxOffset(String topic, int queueId);

    /** Appends a message through the normal send path. */
    CompletableFuture<SendResult> append(Message message);

    /**
     * Appends a record of POP's own (a checkpoint or an ack) to its queue of an existing topic: no message id (nobody
     * looks these up), no checks meant for clients' messages.
     */
    CompletableFuture<SendResult> appendRecord(Message record);

    /**
     * As {@link #appendRecord}, for a record whose loss in a crash only repeats deliveries (a checkpoint of a pop from
     * a group's offset): completes once the record is written, before a SYNC store forces it; {@link #whenDurable}
     * tells when it is durable.
     */
    CompletableFuture<SendResult> appendUnforcedRecord(Message record);

    /** Completes once the record {@code appended} names is durable under the flush mode. */
    CompletableFuture<Void> whenDurable(SendResult appended);

    long committedOffset(String group, String topic, int queueId);

    void commitOffset(String group, String topic, int queueId, long offset);

    /**
     * Parks {@code retry} until one of the queues gets an entry or the wait ends, then runs it on the
     * {@link #readExecutor()}; returns what drops the wait early (then {@code retry} never runs), or null when too
     * many are parked.
     */
    Runnable parkAny(List<QueueRef> queues, long waitMillis, Runnable retry);

    /** Wakes pops parked on a queue (a FIFO group's blocked message became available or done). */
    void wake(String topic, int queueId);

    /** Where reads run (never a caller's event loop). */
    Executor readExecutor();

    /** A queue of a topic. */
    record QueueRef(String topic, int queueId) {
    }
}
