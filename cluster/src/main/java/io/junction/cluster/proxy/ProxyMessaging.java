package io.junction.cluster.proxy;

import io.junction.cluster.contract.RemoteMessaging;
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
import io.junction.core.StoreError;
import io.junction.core.StoreException;
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
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The contract a proxy's front-ends hold: every asynchronous call goes to the store group's leader over the network
 * (writes, reads, queries, POP and its acknowledgements, metadata changes); every synchronous one is answered from the
 * {@link MetadataMirror} (routes, topic/group/key-value views, offsets, queue ranges, consumer clients), so no caller
 * ever waits on the network. A call that finds no leader, or whose leader went away, fails with UNAVAILABLE (each
 * protocol's retriable error) and makes the proxy look for the leader again.
 *
 * <p>Transaction check-backs: the leader asks the producers of its own front-ends only; a producer connected to a
 * proxy is not asked, so its unresolved half messages are rolled back after {@code store.transaction-max-checks}
 * (end transactions explicitly). Checkers registered here are kept but never called.
 */
public final class ProxyMessaging implements Messaging {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyMessaging.class);

    private final LeaderLocator locator;
    private final MetadataMirror mirror;
    private final Set<TransactionChecker> checkers = new CopyOnWriteArraySet<>();
    private final ProxyTopics topics;
    private final ProxyGroups groups;
    private final ProxyKvConfigs kvConfigs;
    private final ProxyConsumers consumers;
    private final ProxyStatistics statistics;

    ProxyMessaging(final LeaderLocator locator, final MetadataMirror mirror) {
        this.locator = locator;
        this.mirror = mirror;
        this.topics = new ProxyTopics(this, mirror);
        this.groups = new ProxyGroups(this, mirror);
        this.kvConfigs = new ProxyKvConfigs(this, mirror);
        this.consumers = new ProxyConsumers(this, mirror);
        this.statistics = new ProxyStatistics(this);
    }

    /**
     * Calls the leader; a failure to find it, or an UNAVAILABLE answer, makes the proxy look for the leader again.
     */
    <T> CompletableFuture<T> forward(final Function<RemoteMessaging, CompletableFuture<T>> call) {
        final RemoteMessaging leader;
        try {
            leader = locator.leader();
        } catch (StoreException e) {
            locator.suspect();
            return CompletableFuture.failedFuture(e);
        }
        final CompletableFuture<T> result = call.apply(leader);
        result.whenComplete((r, failure) -> {
            if (failure != null && StoreException.errorOf(failure) == StoreError.UNAVAILABLE) {
                locator.suspect();
            }
        });
        return result;
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        return forward(m -> m.send(message));
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        return forward(m -> m.sendBatch(messages));
    }

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        return forward(m -> m.pull(request)).thenApply(r -> {
            mirror.observe(request.topic(), request.queueId(), r.minOffset(), r.maxOffset());
            return r;
        });
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        return forward(m -> m.pop(request));
    }

    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return forward(m -> m.browse(request));
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return forward(m -> m.ack(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return forward(m -> m.ack(group, receiptHandles));
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return forward(m -> m.ackReceipts(group, receipts));
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return forward(m -> m.changeInvisibleTime(group, receiptHandle, invisibleMillis));
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return forward(m -> m.nack(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return forward(m -> m.giveBack(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return forward(m -> m.deadLetter(group, receiptHandle));
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        return forward(m -> m.recall(handle));
    }

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        return forward(m -> m.endTransaction(end));
    }

    /** Kept, never called: the leader checks half messages back with its own front-ends' producers only. */
    @Override
    public void addTransactionChecker(final TransactionChecker checker) {
        checkers.add(checker);
    }

    @Override
    public void removeTransactionChecker(final TransactionChecker checker) {
        checkers.remove(checker);
    }

    /** Recorded in the mirror at once (read your own commit), and sent to the leader, whose table lasts. */
    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        mirror.commitOffset(group, topic, queueId, offset);
        forward(m -> m.commitOffsetAsync(group, topic, queueId, offset)).whenComplete((r, e) -> {
            if (e != null) {
                LOG.debug("Forwarding the offset of {} on {}-{} failed (the client commits again)", group, topic,
                        queueId, e);
            }
        });
    }

    @Override
    public long queryOffset(final String group, final String topic, final int queueId) {
        return mirror.queryOffset(group, topic, queueId);
    }

    /** From the mirror: at most about {@link ProxyNode#MIRROR_INTERVAL} old, or as a read through this proxy said. */
    @Override
    public long minOffset(final String topic, final int queueId) {
        return mirror.minOffset(topic, queueId);
    }

    /**
     * From the mirror: at most about {@link ProxyNode#MIRROR_INTERVAL} behind the leader, and never behind what a pull
     * through this proxy reported; a reader that trusts it reads up to there and asks again. (A send's result does not
     * move it: a delayed message's offset is its timer queue's.)
     */
    @Override
    public long maxOffset(final String topic, final int queueId) {
        return mirror.maxOffset(topic, queueId);
    }

    @Override
    public Duration retention() {
        return mirror.retention();
    }

    @Override
    public CompletableFuture<Long> searchOffset(final String topic, final int queueId, final long timestamp) {
        return forward(m -> m.searchOffset(topic, queueId, timestamp));
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        return forward(m -> m.earliestStoreTime(topic, queueId));
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return forward(m -> m.lookup(commitLogOffset));
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return forward(m -> m.queryById(topic, messageId));
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return forward(m -> m.queryByKey(topic, key, max, beginTimestamp, endTimestamp));
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return forward(m -> m.queryByTime(topic, beginTimestamp, endTimestamp, max));
    }

    @Override
    public Optional<TopicConfig> route(final String topic) {
        return mirror.topics.get(topic);
    }

    @Override
    public TopicAdmin topics() {
        return topics;
    }

    @Override
    public GroupAdmin groups() {
        return groups;
    }

    @Override
    public Consumers consumers() {
        return consumers;
    }

    /** Tells a leader this proxy just found about its consumer clients. */
    void leaderFound() {
        consumers.replayHeartbeats();
    }

    @Override
    public Statistics statistics() {
        return statistics;
    }

    @Override
    public KvConfigs kvConfigs() {
        return kvConfigs;
    }
}
