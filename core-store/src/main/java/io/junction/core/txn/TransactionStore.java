package io.junction.core.txn;

import io.junction.core.PullResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/** What transactions need from the store: narrow on purpose, so this package never reaches into storage classes. */
public interface TransactionStore {
    /**
     * Appends a record to queue 0 of a system topic ({@code message.topic()}; not listed, not in the topic table);
     * completes when durable under the flush mode.
     */
    CompletableFuture<Stored> appendSystem(Message message);

    /** Appends a committed message to its real topic and queue through the normal send path. */
    CompletableFuture<?> deliver(Message message);

    /** Up to {@code max} records of queue 0 of a system topic from {@code offset} (no waiting). */
    PullResult read(String systemTopic, long offset, int max);

    /** The smallest readable offset of queue 0 of a system topic. */
    long minOffset(String systemTopic);

    /** The offset the next indexed record of queue 0 of a system topic will get. */
    long maxOffset(String systemTopic);

    /** The record at a log offset, or null when it is gone (retention) or not a record. */
    StoredMessage readRecord(long logOffset);

    /** The committed replay position of queue 0 of a system topic, or -1. */
    long replayPosition(String systemTopic);

    /** Saves the replay position of queue 0 of a system topic (persisted with the consumer offsets). */
    void saveReplayPosition(String systemTopic, long offset);

    /** True when a message of {@code topic} with {@code uniqueId} was stored after {@code afterLogOffset}. */
    boolean storedAfter(String topic, String uniqueId, long afterLogOffset);

    /**
     * Where a system record landed.
     *
     * @param storeHost       the store's address (with the log offset, the offset message id)
     */
    record Stored(long logOffset, long queueOffset, long storeTimestamp, InetSocketAddress storeHost) {
    }
}
