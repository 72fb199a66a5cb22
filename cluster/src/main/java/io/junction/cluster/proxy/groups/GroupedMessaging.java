package io.junction.cluster.proxy.groups;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The contract over several store groups. Metadata (topics, consumer groups, offsets, key-value configs, membership,
 * queue locks) is the first group's, the metadata group. A topic's queues are placed as logical-queue segments
 * ({@link TopicPlacement}, read from {@link PlacementBook}); a topic without a placement lives wholly on the metadata
 * group, exactly as behind a one-group proxy. Sends go to the open segment of the logical queue; offset reads walk the
 * segments ({@link SegmentReader}); POP spreads over the groups holding the topic ({@link PopSpreader}), a long poll
 * ending when the placement changes ({@link PlacementChangeWatch}), a FIFO or in-place consumer group's POP holding a
 * logical queue's next segment until it is done with the one before ({@link SeamHolds}); receipts name the group that
 * issued them and go back there ({@link ReceiptRouter}); queries ask every group holding the topic and merge
 * ({@link MergedQueries}); browsing goes group after group ({@link SpreadBrowser}). Commit-log offsets handed out
 * name their group, so a look-up by one, a transaction end and a recall go to that group ({@link GroupNumbering}).
 * Consumer offsets are kept in logical offsets in the metadata group. What a store could not deliver into a sealed
 * queue itself is carried to the logical queue's live segment ({@link SealedForwarder}). Groups may be added and
 * removed while it runs ({@link #addGroup}, {@link #removeGroup}).
 */
public final class GroupedMessaging implements Messaging, AutoCloseable {
    private final LiveGroupMap groups;
    private final String metadataGroup;
    private final Messaging metadata;
    private final PlacementBook book;
    private final SegmentReader reader;
    private final PopSpreader pops;
    private final SeamHolds seams;
    private final PlacementChangeWatch placementChanges;
    private final GroupedTopics topics;
    private final GroupedGroups groupAdmin;
    private final GroupedConsumers consumers;
    private final ReceiptRouter receipts;
    private final MergedQueries queries;
    private final SpreadBrowser browser;
    private final QueueScaler scaler;
    private final SealedQueueRetry moves;
    private final SealedForwarder forwarder;
    private final GroupedStatistics statistics;
    /** Groups added at run time and retired since: their sealed segments are read, nothing new is placed there. */
    private final Set<String> retired = ConcurrentHashMap.newKeySet();
    private final AtomicInteger roundRobin = new AtomicInteger();

    /**
     * @param groups the store groups' contracts by name, in order: the first is the metadata group
     */
    public GroupedMessaging(final Map<String, Messaging> groups) {
        this(groups, () -> CompletableFuture.completedFuture(true));
    }

    /**
     * @param groups          the store groups' contracts by name, in order: the first is the metadata group
     * @param metadataRefresh refreshes the metadata group's mirror now (a send that met a sealed queue looks for the
     *                        queue's new segment at once rather than at the mirror's next refresh)
     */
    public GroupedMessaging(final Map<String, Messaging> groups,
                            final Supplier<CompletableFuture<Boolean>> metadataRefresh) {
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("no store group");
        }
        this.groups = new LiveGroupMap(groups);
        this.metadataGroup = groups.keySet().iterator().next();
        this.metadata = groups.get(metadataGroup);
        this.book = new PlacementBook(metadata.kvConfigs());
        this.reader = new SegmentReader(this::group, name -> this.groups.containsKey(name), this.groups::ordinal);
        final GroupConfigSync configs = new GroupConfigSync(metadata, this::group);
        this.pops = new PopSpreader(this::group, name -> this.groups.containsKey(name), configs,
                this.groups::ordinal);
        this.seams = new SeamHolds(metadata, this::group, name -> this.groups.containsKey(name));
        this.placementChanges = new PlacementChangeWatch(pop -> seams.scope(book.get(pop.topic()), pop), this);
        this.topics = new GroupedTopics(this.groups, book, metadataRefresh);
        this.groupAdmin = new GroupedGroups(this.groups);
        this.consumers = new GroupedConsumers(metadata, book, reader, this::group);
        this.receipts = new ReceiptRouter(this.groups);
        this.queries = new MergedQueries(this.groups, book);
        this.browser = new SpreadBrowser(this.groups, book);
        this.scaler = new QueueScaler(this.groups, book, g -> !retired.contains(g), metadataRefresh);
        this.moves = new SealedQueueRetry(book, metadataRefresh);
        this.statistics = new GroupedStatistics(this.groups, metadata);
        this.forwarder = new SealedForwarder(this.groups::keySet, this::group, book, this::send);
        forwarder.sweep();
    }

    /**
     * Reaches a store group added at run time: its segments are read and written from now on, scaling may place
     * segments there ({@code retired}: only its sealed segments are read), and what it forwards from sealed queues
     * is carried. New topics keep spreading over the configured groups only, so every proxy places them alike.
     *
     * @param number the group's number, recorded with it in the metadata group ({@link GroupNumbering})
     */
    public void addGroup(final String name, final Messaging group, final int number, final boolean retiredGroup) {
        groups.add(name, group, number);
        setRetired(name, retiredGroup);
        forwarder.sweep();
    }

    /** The group's number ({@link GroupNumbering}), -1 for a group not reached. */
    int number(final String name) {
        return groups.ordinal(name);
    }

    /** Marks a group retired (no new segment is placed there) or not. */
    public void setRetired(final String name, final boolean retiredGroup) {
        if (retiredGroup) {
            retired.add(name);
        } else {
            retired.remove(name);
        }
    }

    /** Whether a group is retired (nothing new placed there). */
    public boolean retired(final String name) {
        return retired.contains(name);
    }

    /** Forgets a store group: calls naming it fail with UNAVAILABLE from now on. */
    public void removeGroup(final String name) {
        if (name.equals(metadataGroup)) {
            throw new IllegalArgumentException("the metadata group " + name + " cannot be removed");
        }
        groups.remove(name);
        retired.remove(name);
    }

    /** The groups reached, in order (metadata group first). */
    public List<String> groupNames() {
        return List.copyOf(groups.keySet());
    }

    /** How the placements use a group: the topics writing there, those with readable sealed segments only. */
    public GroupUse use(final String group) {
        return GroupUse.of(group, book, groups);
    }

    /** Stops carrying forwarded messages. */
    @Override
    public void close() {
        forwarder.close();
    }

    private Messaging group(final String name) {
        final Messaging m = groups.get(name);
        if (m == null) {
            throw new StoreException(StoreError.UNAVAILABLE, "store group " + name + " is not configured here");
        }
        return m;
    }

    /** The placement a call on {@code topic} follows, null for a topic wholly on the metadata group. */
    public TopicPlacement placement(final String topic) {
        return book.get(topic);
    }

    /** Every placed topic's placement text by topic. */
    public Map<String, String> placements() {
        return book.texts();
    }

    private static <T> CompletableFuture<T> failed(final StoreError error, final String text) {
        return CompletableFuture.failedFuture(new StoreException(error, text));
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        final TopicPlacement placement = book.get(message.topic());
        if (placement == null) {
            // A topic wholly on the metadata group being scaled for the first time: its placement comes next.
            return metadata.send(message).exceptionallyCompose(e -> !SealedQueueRetry.sealed(e)
                    ? CompletableFuture.failedFuture(e)
                    : moves.placed(message.topic()).thenCompose(placed -> placed ? send(message)
                            : CompletableFuture.failedFuture(e)));
        }
        final int queue = logicalQueue(placement, message);
        if (!placement.hasQueue(queue)) {
            return failed(StoreError.ILLEGAL_ARGUMENT, "queue " + queue + " of topic " + message.topic()
                    + " does not exist");
        }
        return moves.retried(message.topic(), SealedQueueRetry.writable(placement, queue), to -> group(
                to.segment().group()).send(physical(message, to.segment()))
                .thenApply(r -> logical(r, message.topic(), to.queue(), to.segment(),
                        groups.ordinal(to.segment().group()))));
    }

    /**
     * Scales a topic (see {@link QueueScaler}): {@code queues} logical queues, whose writes go to {@code targets}
     * (queues elsewhere move there, sealed where they were; new ones are placed there). Answers the new placement.
     */
    public CompletableFuture<TopicPlacement> scale(final String topic, final int queues, final List<String> targets) {
        return scaler.scale(topic, queues, targets);
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        final TopicPlacement placement = messages.isEmpty() ? null : book.get(messages.get(0).topic());
        if (placement == null) {
            return metadata.sendBatch(messages);
        }
        final Message first = messages.get(0);
        final int queue = logicalQueue(placement, first);
        if (!placement.hasQueue(queue)) {
            return failed(StoreError.ILLEGAL_ARGUMENT, "queue " + queue + " of topic " + first.topic()
                    + " does not exist");
        }
        return moves.retried(first.topic(), SealedQueueRetry.writable(placement, queue), to -> group(
                to.segment().group()).sendBatch(messages.stream().map(m -> physical(m, to.segment())).toList())
                .thenApply(rs -> rs.stream().map(r -> logical(r, first.topic(), to.queue(), to.segment(),
                        groups.ordinal(to.segment().group()))).toList()));
    }

    /** The caller's queue, else the message group's (stable), else the next in turn: the core's rule, logically. */
    private int logicalQueue(final TopicPlacement placement, final Message message) {
        if (message.queueId() != Message.ANY_QUEUE) {
            return message.queueId();
        }
        final String messageGroup = message.messageGroup();
        if (messageGroup != null && !messageGroup.isEmpty()) {
            return Math.floorMod(messageGroup.hashCode(), placement.writeQueueCount());
        }
        return Math.floorMod(roundRobin.getAndIncrement(), placement.writeQueueCount());
    }

    private static Message physical(final Message m, final QueueSegment open) {
        return new Message(m.topic(), open.physicalQueue(), m.body(), m.flag(), m.properties(), m.sysFlag(),
                m.bornTimestamp(), m.bornHost(), m.reconsumeTimes());
    }

    /**
     * A send's result in logical terms, its commit-log offset naming the group (a delayed message's result names its
     * timer queue: that is left as it is).
     */
    private static SendResult logical(final SendResult r, final String topic, final int queue,
                                      final QueueSegment open, final int ordinal) {
        final long logOffset = GroupNumbering.tagged(ordinal, r.commitLogOffset());
        if (!r.topic().equals(topic) || r.queueId() != open.physicalQueue()) {
            return logOffset == r.commitLogOffset() ? r : new SendResult(r.uniqueId(), r.topic(), r.queueId(),
                    r.queueOffset(), logOffset, r.storeHost());
        }
        return new SendResult(r.uniqueId(), r.topic(), queue, open.toLogical(r.queueOffset()), logOffset,
                r.storeHost());
    }

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        final TopicPlacement placement = book.get(request.topic());
        return placement == null ? metadata.pull(request) : reader.pull(placement, request);
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        final PopScope scope = seams.scope(book.get(request.topic()), request);
        if (request.maxWaitMillis() <= 0) {
            return pop(scope, request);
        }
        return placementChanges.endOnChange(request, scope, s -> pop(s, request));
    }

    private CompletableFuture<PopResult> pop(final PopScope scope, final PopRequest request) {
        return scope.placement() == null ? metadata.pop(request) : pops.pop(scope, request);
    }

    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return browser.browse(request);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return receipts.ack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return receipts.ack(group, receiptHandles);
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receiptList) {
        return receipts.ackReceipts(group, receiptList);
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return receipts.changeInvisibleTime(group, receiptHandle, invisibleMillis);
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return receipts.nack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return receipts.giveBack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return receipts.deadLetter(group, receiptHandle);
    }

    /**
     * The delayed message waits in the group its queue's segment was open on, which the handle's log offset names;
     * a handle naming none (the metadata group's, or from before offsets named groups): each holding group in turn.
     */
    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        final String named = namedBy(handle.logOffset());
        if (named == null) {
            return firstAccepting(holding(handle.topic()), 0, m -> m.recall(handle));
        }
        final RecallHandle raw = new RecallHandle(handle.topic(), handle.uniqueId(), handle.deliverAt(),
                GroupNumbering.rawOf(handle.logOffset()));
        return group(named).recall(raw);
    }

    /**
     * The half message is in the group its send went to, which the log offset the producer was given names. A
     * transaction check comes from the group itself with the group's own offset, which names no group: then each
     * group is asked in turn (another group refuses the offset and id: ILLEGAL_ARGUMENT, nothing changed).
     */
    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        final String named = namedBy(end.commitLogOffset());
        if (named == null) {
            return firstAccepting(new ArrayList<>(groups.values()), 0, m -> m.endTransaction(end));
        }
        final TransactionEnd raw = new TransactionEnd(end.producerGroup(), GroupNumbering.rawOf(end.commitLogOffset()),
                end.messageId(), end.transactionId(), end.resolution(), end.fromCheck());
        return group(named).endTransaction(raw);
    }

    /** The group other than the metadata group a handed-out commit-log offset names, null for none. */
    private String namedBy(final long commitLogOffset) {
        final String named = groups.namedBy(commitLogOffset);
        return metadataGroup.equals(named) ? null : named;
    }

    private static CompletableFuture<Void> firstAccepting(final List<Messaging> candidates, final int index,
                                                          final Function<Messaging, CompletableFuture<Void>> call) {
        return call.apply(candidates.get(index)).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (index + 1 < candidates.size() && StoreException.errorOf(e) == StoreError.ILLEGAL_ARGUMENT) {
                return firstAccepting(candidates, index + 1, call);
            }
            return CompletableFuture.<Void>failedFuture(e);
        }).thenCompose(Function.identity());
    }

    /** The groups holding a topic: the metadata group first, then the placement's others. */
    private List<Messaging> holding(final String topic) {
        final List<Messaging> holding = new ArrayList<>(List.of(metadata));
        final TopicPlacement placement = book.get(topic);
        if (placement != null) {
            placement.groups().stream().filter(groups::containsKey).map(this::group).filter(m -> m != metadata)
                    .forEach(holding::add);
        }
        return holding;
    }

    /** Every group hears of the front-ends' checkers (their leaders ask their own front-ends' producers only). */
    @Override
    public void addTransactionChecker(final TransactionChecker checker) {
        groups.values().forEach(m -> m.addTransactionChecker(checker));
    }

    @Override
    public void removeTransactionChecker(final TransactionChecker checker) {
        groups.values().forEach(m -> m.removeTransactionChecker(checker));
    }

    /** Offsets are logical and kept by the metadata group, whatever group holds the queue's segments. */
    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        metadata.commitOffset(group, topic, queueId, offset);
    }

    @Override
    public long queryOffset(final String group, final String topic, final int queueId) {
        return metadata.queryOffset(group, topic, queueId);
    }

    @Override
    public long minOffset(final String topic, final int queueId) {
        final TopicPlacement placement = book.get(topic);
        return placement == null || !placement.hasQueue(queueId) ? metadata.minOffset(topic, queueId)
                : reader.minOffset(placement, topic, queueId);
    }

    @Override
    public long maxOffset(final String topic, final int queueId) {
        final TopicPlacement placement = book.get(topic);
        return placement == null || !placement.hasQueue(queueId) ? metadata.maxOffset(topic, queueId)
                : reader.maxOffset(placement, topic, queueId);
    }

    @Override
    public Duration retention() {
        return metadata.retention();
    }

    @Override
    public CompletableFuture<Long> searchOffset(final String topic, final int queueId, final long timestamp) {
        final TopicPlacement placement = book.get(topic);
        return placement == null || !placement.hasQueue(queueId) ? metadata.searchOffset(topic, queueId, timestamp)
                : reader.searchOffset(placement, topic, queueId, timestamp);
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        final TopicPlacement placement = book.get(topic);
        return placement == null || !placement.hasQueue(queueId) ? metadata.earliestStoreTime(topic, queueId)
                : reader.earliestStoreTime(placement, topic, queueId);
    }

    /** In the group the offset names ({@link GroupNumbering}): commit-log offsets are per group. */
    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return queries.lookup(commitLogOffset);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return queries.queryById(topic, messageId);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return queries.queryByKey(topic, key, max, beginTimestamp, endTimestamp);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return queries.queryByTime(topic, beginTimestamp, endTimestamp, max);
    }

    /** The metadata group's topic: its queue count is the logical queue count. */
    @Override
    public Optional<TopicConfig> route(final String topic) {
        final Optional<TopicConfig> route = metadata.route(topic);
        final TopicPlacement placement = route.isPresent() ? book.get(topic) : null;
        if (placement == null || placement.writeQueueCount() == placement.queueCount()) {
            return route;
        }
        // Scaled in: the closed queues stay listed for readers, and the route says how many take writes.
        final TopicConfig c = route.get();
        final Map<String, String> attributes = new HashMap<>(c.attributes());
        attributes.put(TopicConfig.WRITE_QUEUES, Integer.toString(placement.writeQueueCount()));
        return Optional.of(new TopicConfig(c.name(), Math.max(c.queueCount(), placement.queueCount()), c.type(),
                c.permissions(), attributes));
    }

    @Override
    public TopicAdmin topics() {
        return topics;
    }

    @Override
    public GroupAdmin groups() {
        return groupAdmin;
    }

    @Override
    public Consumers consumers() {
        return consumers;
    }

    /** Every group's figures together (each store node's own are on its {@code /metrics}). */
    @Override
    public Statistics statistics() {
        return statistics;
    }

    @Override
    public KvConfigs kvConfigs() {
        return metadata.kvConfigs();
    }
}
