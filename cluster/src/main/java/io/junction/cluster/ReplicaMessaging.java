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
import io.junction.core.StoreException;
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
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The {@link Messaging} front-ends hold on a cluster node: every call goes to the replica's store of the moment, which
 * is reopened when the node's role changes. Writes, POP and its acknowledgements, transaction ends, recalls and
 * offset commits go to the {@link #forwardWritesTo writer}: the local store while this node leads, the leader's
 * contract server while it follows, so a client of a follower is served as if the node led. Reads (pull, queries,
 * offsets, metadata) are served by the local replica. Transaction checkers are registered again on each reopened
 * store, so a leader checks half messages back with its own front-ends' producers; the leader hands the same checks to
 * the other members, whose contract servers pass them to {@link #checkWithProducers}.
 */
public final class ReplicaMessaging implements Messaging {
    private final Set<TransactionChecker> checkers = new CopyOnWriteArraySet<>();
    private volatile MessageStore store;
    /** Where writes go; the local store until a cluster node says otherwise. */
    private volatile Supplier<Messaging> writer = this::store;

    /** Switches to a (re)opened store. */
    public void switchTo(final MessageStore next) {
        store = next;
        for (TransactionChecker checker : checkers) {
            next.addTransactionChecker(checker);
        }
    }

    /** Asks this node's front-ends' producers about a half message (a check-back the leader handed over). */
    public void checkWithProducers(final String producerGroup, final StoredMessage halfMessage,
                                   final int checkTimes) {
        for (TransactionChecker checker : checkers) {
            checker.check(producerGroup, halfMessage, checkTimes);
        }
    }

    /**
     * Sends writes, POP and acknowledgements to what {@code target} names at each call: the local store, or the
     * leader's contract server ({@link ClusterNode#writer()}); it throws a {@link StoreException} when there is none.
     */
    public void forwardWritesTo(final Supplier<Messaging> target) {
        this.writer = target;
    }

    private MessageStore store() {
        return store;
    }

    private <T> CompletableFuture<T> write(final Function<Messaging, CompletableFuture<T>> call) {
        final Messaging target;
        try {
            target = writer.get();
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return call.apply(target);
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        return write(m -> m.send(message));
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        return write(m -> m.sendBatch(messages));
    }

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        return store().pull(request);
    }

    @Override
    public <R> CompletableFuture<R> pullLent(final PullRequest request, final Function<PullResult, R> reader,
                                             final Consumer<? super R> dropped) {
        return store().pullLent(request, reader, dropped);
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        return write(m -> m.pop(request));
    }

    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return store().browse(request);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return write(m -> m.ack(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return write(m -> m.ack(group, receiptHandles));
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return write(m -> m.ackReceipts(group, receipts));
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return write(m -> m.changeInvisibleTime(group, receiptHandle, invisibleMillis));
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return write(m -> m.nack(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return write(m -> m.giveBack(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return write(m -> m.deadLetter(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        return write(m -> m.recall(handle));
    }

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        return write(m -> m.endTransaction(end));
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
        // The local table answers this node's queries at once (read your own commit); the leader's is the one that
        // lasts and reaches every replica.
        final MessageStore local = store();
        local.commitOffset(group, topic, queueId, offset);
        try {
            final Messaging target = writer.get();
            if (target != local) {
                target.commitOffset(group, topic, queueId, offset);
            }
        } catch (StoreException e) {
            // No leader now: the client commits again (consumers commit periodically).
        }
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
