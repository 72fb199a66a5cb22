package io.junction.core;

import io.junction.core.group.ConsumerClient;
import io.junction.core.group.MembershipListener;
import io.junction.core.group.QueueLag;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

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

    /**
     * Stores messages as one unit: all of them or none. The members must share a topic and a queue id
     * ({@link Message#ANY_QUEUE}: one queue is chosen for all); they land next to each other in the log, in order, with
     * consecutive queue offsets, and become visible to consumers together. Only normal messages batch: a delayed or
     * transactional member, a member that a single send would refuse, or bodies adding up to more than the maximum
     * message size fail the whole batch, and nothing of it is stored. A write that fails half-way leaves nothing
     * either, not even after a restart.
     *
     * @return one result per member, in order
     */
    default CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE,
                "this message core does not store batches"));
    }

    /**
     * Reads messages of one queue from an offset; waits for arrivals when asked to. Cancelling the future of a waiting
     * read (its client left) drops the wait at once.
     */
    CompletableFuture<PullResult> pull(PullRequest request);

    /**
     * Reads as {@link #pull} does, and hands what it read to {@code reader} on the thread that read it; the future
     * completes with {@code reader}'s answer (or fails as the pull, or as {@code reader}, failed). Cancelling the
     * future drops a waiting read, as for {@link #pull}; an answer {@code reader} gave that the cancelled future can no
     * longer take goes to {@code dropped} (to release what it holds).
     *
     * <p>The messages are lent: their bytes are valid only during the call, because a store may read its next pull into
     * the same memory. {@code reader} copies out what it needs (a front-end renders them into its response) and keeps
     * no message, body or property view. The store saves a heap copy of every record this way. The default is
     * {@link #pull} followed by {@code reader}, for cores that have nothing to lend.
     */
    default <R> CompletableFuture<R> pullLent(final PullRequest request, final Function<PullResult, R> reader,
                                              final Consumer<? super R> dropped) {
        final CompletableFuture<PullResult> pulled = pull(request);
        final CompletableFuture<R> answer = new CompletableFuture<>();
        pulled.whenComplete((r, e) -> {
            if (e != null) {
                answer.completeExceptionally(e);
            } else if (!answer.isDone()) {
                final R value;
                try {
                    value = reader.apply(r);
                } catch (RuntimeException failed) {
                    answer.completeExceptionally(failed);
                    return;
                }
                if (!answer.complete(value)) {
                    dropped.accept(value);
                }
            }
        });
        answer.whenComplete((r, e) -> {
            if (answer.isCancelled()) {
                pulled.cancel(false);
            }
        });
        return answer;
    }

    /**
     * Takes messages of a topic for a consumer group across all its queues (server-side balancing); each stays
     * invisible to the group until acked or until its invisible time passes, then it is redelivered. Cancelling the
     * future of a waiting pop (its client left) drops the wait at once; messages it was taking just then go back to
     * the group at once.
     */
    CompletableFuture<PopResult> pop(PopRequest request);

    /**
     * Looks at the messages a consumer group would get next, oldest first per queue, without taking them or counting
     * a delivery: neither consumed nor in flight (for an in-place group,
     * {@link GroupConfig#inPlace}, exactly what its pops would hand out, including messages given
     * back; otherwise what no pop has reached yet).
     */
    default CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE,
                "this message core does not browse"));
    }

    /** Acknowledges a popped message; fails (ILLEGAL_ARGUMENT) for a forged, foreign or expired handle. */
    CompletableFuture<Void> ack(String group, String receiptHandle);

    /**
     * Acknowledges several popped messages of one group at once, with fewer durable records than one per message.
     * Every valid handle is acknowledged; the future then fails with the first invalid handle's error, if any.
     */
    CompletableFuture<Void> ack(String group, List<String> receiptHandles);

    /**
     * {@link #ack(String, List)} for receipts kept in process: a front-end that never hands receipts to its clients
     * acks them as the pop gave them, and the core skips opening sealed text.
     */
    default CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return ack(group, receipts.stream().map(Receipt::sealed).toList());
    }

    /**
     * Moves a popped message's redelivery to {@code invisibleMillis} from now; returns its new receipt handle. For an
     * in-place group ({@link GroupConfig#inPlace}), 0 makes it available again in its place at
     * once, and no handle works for it any more.
     */
    CompletableFuture<String> changeInvisibleTime(String group, String receiptHandle, long invisibleMillis);

    /**
     * A negative acknowledgement (the consumer failed it): redelivered after the group's back-off, with the delivery
     * counted; returns its new receipt handle.
     */
    CompletableFuture<String> nack(String group, String receiptHandle);

    /**
     * Returns a popped message unconsumed (its consumer left, or may no longer read it, before consuming it): the
     * group can take it again at once, and its delivery count is unchanged, so it neither brings the dead-letter
     * topic closer nor shows as redelivered. (A {@link #changeInvisibleTime} to 0 counts the delivery.) The handle
     * works no more afterwards.
     */
    CompletableFuture<Void> giveBack(String group, String receiptHandle);

    /** Moves a popped message to the group's dead-letter topic now (the consumer gave up on it). */
    CompletableFuture<Void> deadLetter(String group, String receiptHandle);

    /**
     * Recalls a delayed message before its delivery time: it is never delivered. Fails (ILLEGAL_ARGUMENT) when no
     * delayed message waits under this handle: its time has come, or the handle names none.
     */
    CompletableFuture<Void> recall(RecallHandle handle);

    /**
     * Ends a transaction: COMMIT delivers the half message (sent with {@code TRAN_MSG=true} or the PREPARED
     * transaction type, stored invisibly until now) to its topic and queue, ROLLBACK drops it, UNKNOWN leaves it to be
     * checked back. Fails (ILLEGAL_ARGUMENT), changing nothing, when no unresolved half message matches: unknown, or
     * already committed or rolled back.
     */
    CompletableFuture<Void> endTransaction(TransactionEnd end);

    /**
     * Adds a hook that asks producers of a group about half messages left unresolved. Every front-end that can reach
     * producers adds its own; each check goes to all of them (each asks the producers it has). Without any,
     * unresolved half messages just wait.
     */
    void addTransactionChecker(TransactionChecker checker);

    /** Removes a hook added with {@link #addTransactionChecker} (the front-end stops). */
    void removeTransactionChecker(TransactionChecker checker);

    /** Records a consumer group's position in a queue. */
    void commitOffset(String group, String topic, int queueId, long offset);

    /** A consumer group's committed position in a queue, or -1 when it never committed one. */
    long queryOffset(String group, String topic, int queueId);

    /** The smallest readable offset of a queue. */
    long minOffset(String topic, int queueId);

    /** The offset the next message of a queue will get. */
    long maxOffset(String topic, int queueId);

    /**
     * How long records are kept: older segments are deleted (sooner when the disk fills). State kept as records in a
     * topic (a front-end's compacted table) must be written again before it ages out.
     */
    Duration retention();

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

    /** Consumer clients at run time: membership, queue locks, lag and replay. */
    Consumers consumers();

    /** Traffic and store figures for admin tools. */
    Statistics statistics();

    /** Key-value configuration items, kept durably (what RocketMQ's name server keeps for {@code mqadmin}). */
    KvConfigs kvConfigs();

    /** Traffic and store figures for admin tools. */
    interface Statistics {
        /** The broker's figures as of now (reads the log and the file system, so off the caller). */
        CompletableFuture<RuntimeFigures> runtime();

        /** Messages handed to {@code group}'s consumers of {@code topic} per second over the last minute. */
        double consumeTps(String group, String topic);
    }

    /** Key-value configuration items by namespace and key; durable once a change's future completes. */
    interface KvConfigs {
        /** Sets an item; fails (ILLEGAL_ARGUMENT) for an empty namespace or key, or a text too long. */
        CompletableFuture<Void> put(String namespace, String key, String value);

        Optional<String> get(String namespace, String key);

        /** Removes an item; false when there was none. */
        CompletableFuture<Boolean> delete(String namespace, String key);

        /**
         * Sets an item only while it holds {@code expected} ({@code null}: only while there is none), checked where
         * the items are kept (a replicated group's leader), so writers that read an item, change it and write it back
         * never overwrite each other's change. True when written; false, nothing changed, when it held something
         * else (read it again). Refused as {@link #put} refuses.
         */
        CompletableFuture<Boolean> replace(String namespace, String key, String expected, String value);

        /** The items of a namespace by key, sorted. */
        SortedMap<String, String> list(String namespace);
    }

    /** Consumer clients at run time. */
    interface Consumers {
        /**
         * The offset key of one client of a broadcast group: in broadcast mode every client consumes every message,
         * so each commits and queries its offsets under its own key instead of the group's.
         */
        static String broadcastOffsetKey(final String group, final String clientId) {
            return group + '@' + clientId;
        }

        /** Records a client's heartbeat (its subscriptions by topic). */
        void heartbeat(String group, String clientId,
                       Map<String, ConsumerClient.Subscription> subscriptions,
                       boolean broadcast);

        /** A client left. */
        void unregister(String group, String clientId);

        /** The group's live clients, sorted by id. */
        List<ConsumerClient> clients(String group);

        /** Hears of membership changes (to tell clients to rebalance). */
        void addListener(MembershipListener listener);

        /** Locks (or renews) queues for a client; returns those it holds. */
        Set<Integer> lockQueues(String group, String clientId, String topic, Set<Integer> queues);

        /** Releases a client's queue locks. */
        void unlockQueues(String group, String clientId, String topic, Set<Integer> queues);

        /** The topics the group committed offsets on, sorted: its consumers need not be online. */
        SortedSet<String> committedTopics(String group);

        /** The group's lag on every queue of the topic (reads the store times of messages, so off the caller). */
        CompletableFuture<List<QueueLag>> lag(String group, String topic);

        /**
         * Moves the group's offsets on every queue of the topic to the first message stored at or after
         * {@code timestamp} (replay); POP consumption restarts there too. Returns the new offsets by queue.
         */
        CompletableFuture<Map<Integer, Long>> resetOffsets(String group, String topic, long timestamp);
    }

    /** Creates, changes, deletes and lists topics. */
    interface TopicAdmin {
        /** Creates or updates a topic. Shrinking the queue count hides the removed queues; their data stays. */
        CompletableFuture<TopicConfig> createOrUpdate(TopicConfig config);

        /**
         * Creates the topic unless one of that name exists (atomically: a topic another front-end created meanwhile is
         * kept as it is); returns the topic as it now is.
         */
        CompletableFuture<TopicConfig> createIfAbsent(TopicConfig config);

        /** Deletes a topic, its queues and its committed offsets; false when there was none. */
        CompletableFuture<Boolean> delete(String topic);

        Optional<TopicConfig> get(String topic);

        Collection<TopicConfig> list();

        /**
         * Seals a physical queue (the write fence of scaling a topic across store groups): ordered with the writes,
         * it answers the queue's final end offset, and no write stored after it lands in that queue (each is refused
         * with {@link StoreError#QUEUE_SEALED}). Durable and replicated like a write; sealing again answers the same
         * end. Stores that cannot seal refuse it.
         */
        default CompletableFuture<Long> sealQueue(final String topic, final int queueId) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE,
                    "this store cannot seal queues"));
        }
    }

    /** Creates, changes, deletes and lists consumer groups. */
    interface GroupAdmin {
        CompletableFuture<GroupConfig> createOrUpdate(GroupConfig config);

        CompletableFuture<Boolean> delete(String group);

        /**
         * Sends up to {@code max} messages of the group's dead-letter topic back to their original topics, counting
         * deliveries from zero again; returns how many were re-driven.
         */
        CompletableFuture<Integer> redriveDeadLetters(String group, int max);

        Optional<GroupConfig> get(String group);

        /**
         * The group as a consumer that uses it finds it: its configuration, or for an unknown group the defaults (the
         * group is created, saved in the background) when groups are created on first use; empty when unknown groups
         * are not created or the name is not one a group may have (the consumer is refused, GROUP_NOT_FOUND).
         */
        Optional<GroupConfig> getOrCreate(String group);

        Collection<GroupConfig> list();
    }
}
