package io.junction.core;

import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The message core as every front-end sees it. Front-ends call this and the tenancy module only, never storage
 * classes.
 *
 * <p>Calls that may touch the disk return a {@link CompletableFuture} and never block the caller: a Netty event loop
 * may call any of them. Failures complete the future exceptionally with a {@link StoreException} whose
 * {@link StoreError} a front-end maps onto its protocol. The remaining calls read memory only.
 */
public interface Messaging {

    /**
     * Stores a message. The future completes once the message is durable under the flush mode (after its fsync in
     * SYNC mode) and visible to consumers.
     */
    CompletableFuture<SendResult> send(Message message);

    /** Reads messages of one queue from an offset; waits for arrivals when asked to. */
    CompletableFuture<PullResult> pull(PullRequest request);

    /** Records a consumer group's position in a queue. */
    void commitOffset(String group, String topic, int queueId, long offset);

    /** A consumer group's committed position in a queue, or -1 when it never committed one. */
    long queryOffset(String group, String topic, int queueId);

    /** The smallest readable offset of a queue. */
    long minOffset(String topic, int queueId);

    /** The offset the next message of a queue will get. */
    long maxOffset(String topic, int queueId);

    /** The first offset of a queue whose message was stored at or after {@code timestamp} (the max offset if none). */
    CompletableFuture<Long> searchOffset(String topic, int queueId, long timestamp);

    /** Store time of the oldest readable message of a queue, or -1 when the queue is empty. */
    CompletableFuture<Long> earliestStoreTime(String topic, int queueId);

    /** The message stored at a log offset (the offset inside an offset message id). */
    CompletableFuture<Optional<StoredMessage>> lookup(long commitLogOffset);

    /** A message by its unique id or its offset message id. */
    CompletableFuture<Optional<StoredMessage>> queryById(String topic, String messageId);

    /** Messages of a topic carrying {@code key} stored in [begin, end], newest first, at most {@code max}. */
    CompletableFuture<List<StoredMessage>> queryByKey(String topic, String key, int max, long beginTimestamp,
                                                      long endTimestamp);

    /** Messages of a topic stored in [begin, end], oldest first, at most {@code max}. */
    CompletableFuture<List<StoredMessage>> queryByTime(String topic, long beginTimestamp, long endTimestamp, int max);

    /** The topic's configuration, its route: every queue of it lives on this node. */
    Optional<TopicConfig> route(String topic);

    /** Topic administration. */
    TopicAdmin topics();

    /** Consumer group administration. */
    GroupAdmin groups();

    /** Creates, changes, deletes and lists topics. */
    interface TopicAdmin {
        /** Creates or updates a topic. Shrinking the queue count hides the removed queues; their data stays. */
        CompletableFuture<TopicConfig> createOrUpdate(TopicConfig config);

        /** Deletes a topic, its queues and its committed offsets; false when there was none. */
        CompletableFuture<Boolean> delete(String topic);

        Optional<TopicConfig> get(String topic);

        Collection<TopicConfig> list();
    }

    /** Creates, changes, deletes and lists consumer groups. */
    interface GroupAdmin {
        CompletableFuture<GroupConfig> createOrUpdate(GroupConfig config);

        CompletableFuture<Boolean> delete(String group);

        Optional<GroupConfig> get(String group);

        Collection<GroupConfig> list();
    }
}
