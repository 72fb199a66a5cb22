package io.junction.cluster;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.RecallHandle;
import io.junction.core.Receipt;
import io.junction.core.SendResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The {@link Messaging} front-ends hold on a cluster node: every call goes to the replica's store of the moment, which
 * is reopened when the node's role changes. While this node follows, its store refuses sends and the other writes
 * with {@code StoreError.UNAVAILABLE} (forwarding them to the leader is a later step); reads are served locally.
 * Transaction checkers are registered again on each reopened store.
 */
public final class ReplicaMessaging implements Messaging {
    private final Set<TransactionChecker> checkers = new CopyOnWriteArraySet<>();
    private volatile MessageStore store;

    /** Switches to a (re)opened store. */
    public void switchTo(final MessageStore next) {
        store = next;
        for (TransactionChecker checker : checkers) {
            next.addTransactionChecker(checker);
        }
    }

    private MessageStore store() {
        return store;
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        return store().send(message);
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        return store().sendBatch(messages);
    }

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        return store().pull(request);
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        return store().pop(request);
    }

    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return store().browse(request);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return store().ack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return store().ack(group, receiptHandles);
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return store().ackReceipts(group, receipts);
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return store().changeInvisibleTime(group, receiptHandle, invisibleMillis);
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return store().nack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return store().giveBack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return store().deadLetter(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        return store().recall(handle);
    }

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        return store().endTransaction(end);
    }

    @Override
    public void addTransactionChecker(final TransactionChecker checker) {
        checkers.add(checker);
        store().addTransactionChecker(checker);
    }

    @Override
    public void removeTransactionChecker(final TransactionChecker checker) {
        checkers.remove(checker);
        store().removeTransactionChecker(checker);
    }

    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        store().commitOffset(group, topic, queueId, offset);
    }

    @Override
    public long queryOffset(final String group, final String topic, final int queueId) {
        return store().queryOffset(group, topic, queueId);
    }

    @Override
    public long minOffset(final String topic, final int queueId) {
        return store().minOffset(topic, queueId);
    }

    @Override
    public long maxOffset(final String topic, final int queueId) {
        return store().maxOffset(topic, queueId);
    }

    @Override
    public Duration retention() {
        return store().retention();
    }

    @Override
    public CompletableFuture<Long> searchOffset(final String topic, final int queueId, final long timestamp) {
        return store().searchOffset(topic, queueId, timestamp);
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        return store().earliestStoreTime(topic, queueId);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return store().lookup(commitLogOffset);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return store().queryById(topic, messageId);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return store().queryByKey(topic, key, max, beginTimestamp, endTimestamp);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return store().queryByTime(topic, beginTimestamp, endTimestamp, max);
    }

    @Override
    public Optional<TopicConfig> route(final String topic) {
        return store().route(topic);
    }

    @Override
    public TopicAdmin topics() {
        return store().topics();
    }

    @Override
    public GroupAdmin groups() {
        return store().groups();
    }

    @Override
    public Consumers consumers() {
        return store().consumers();
    }

    @Override
    public Statistics statistics() {
        return store().statistics();
    }

    @Override
    public KvConfigs kvConfigs() {
        return store().kvConfigs();
    }
}
