package io.junction.core.engine;

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
import io.junction.core.group.ConsumerRegistry;
import io.junction.core.group.QueueLocks;
import io.junction.core.index.MessageIndex;
import io.junction.core.io.MappedWindow;
import io.junction.core.io.SegmentFileFactory;
import io.junction.core.log.CommitLog;
import io.junction.core.log.IndexedAcks;
import io.junction.core.log.LogAppender;
import io.junction.core.log.LogFlusher;
import io.junction.core.log.LogReplication;
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.KvConfig;
import io.junction.core.meta.MetadataCodecs;
import io.junction.core.meta.MetadataFile;
import io.junction.core.meta.TopicConfig;
import io.junction.core.pop.PopService;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.queue.Dispatcher;
import io.junction.core.stats.TrafficCounters;
import io.junction.core.threads.StoreTasks;
import io.junction.core.timer.TimerService;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionService;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local store and the {@link Messaging} facade over it.
 *
 * <p>Design: the parts are wired here and nowhere else. Senders render their record on their own thread and hand it
 * to the {@link LogAppender} (one writer) through the {@link SendPath} (admission, queue choice, timers and half
 * messages); the {@link LogFlusher} makes it durable and completes the send; the {@link Dispatcher} follows the log
 * into consume queues and the id/key index and wakes parked reads ({@link PullPath}); reads and queries run on a
 * small reader pool so a caller's event loop never touches the disk; the {@link Maintenance} jobs write checkpoints
 * ({@link CheckpointWriter}) and offsets, watch the disk ({@link Availability}) and apply {@link Retention}. Opening
 * the store recovers it ({@link StoreRecovery}): it re-verifies and re-indexes the log from the last checkpoint and
 * cuts a torn tail.
 *
 * <p>Delivery features sit on top, each in its own package behind a narrow view of the store (the
 * {@code *StoreAccess} classes here), each made durable by records in its own system topics and replayed at start:
 * timers ({@code timer}: a send with a future deliver time parks in {@code rmq_sys_wheel_timer}), transactions
 * ({@code txn}: half messages in {@code RMQ_SYS_TRANS_HALF_TOPIC} until ended or checked back), POP ({@code pop}:
 * checkpoints and acks in {@code rmq_sys_REVIVE_LOG}, redelivery through retry topics up to the dead-letter topic).
 * Admin, queries and consumer groups live in {@link StoreTopics}, {@link StoreGroups}, {@link MessageQueries} and
 * {@link StoreConsumers}.
 */
public final class MessageStore implements Messaging, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MessageStore.class);
    private static final int METADATA_VERSION = 1;
    /** Names of the metadata tables a replicated store's changes travel under. */
    public static final String TOPICS_TABLE = "topics";
    public static final String GROUPS_TABLE = "groups";
    public static final String KV_TABLE = "kvconfig";
    /** The consumer-offset table, in {@link #exportTables} (it is shipped, not changed by entries). */
    public static final String OFFSETS_TABLE = "offsets";
    private static final int MAX_PARKED_READS = 100_000;
    /** A consumer client missing heartbeats this long is dropped (RocketMQ: 120 s). */
    private static final Duration CONSUMER_EXPIRY = Duration.ofSeconds(120);
    /** Queue locks not renewed this long expire (RocketMQ: 60 s). */
    private static final Duration QUEUE_LOCK_LEASE = Duration.ofSeconds(60);

    private final StoreConfig config;
    private final DataDirectory dataDir;
    private final DurableTable<TopicConfig> topicTable;
    private final DurableTable<GroupConfig> groupTable;
    private final DurableTable<KvConfig> kvTable;
    private final ConsumerOffsets offsets;
    private final CommitLog log;
    private final ConsumeQueueStore queues;
    private final LogFlusher flusher;
    private final LogAppender appender;
    private final Dispatcher dispatcher;
    private final IndexedAcks acks;
    private final QueueReader reader;
    private final MessageQueries queries;
    private final StoreThreads threads;
    private final LongPollWaiters waiters;
    private final Availability availability;
    private final SendPath sending;
    private final PullPath pulling;
    private final CheckpointWriter checkpoints;
    private final TimerService timers;
    private final PopService pops;
    private final TransactionService transactions;
    private final StoreConsumers consumers;
    private final DelayedRecall recalls;
    private final PopReads popReads;
    private final StoreTopics topics;
    private final StoreGroups groups;
    private final StoreStatistics statistics;
    private final StoreKvConfigs kvConfigs;
    private final Retention retention;
    private final ReplicaRole role;
    private final QueueSealing sealing;

    private MessageStore(final StoreConfig config, final DataDirectory dataDir, final LongSupplier clock,
                         final SegmentFileFactory segments, final ReplicaRole role) throws IOException {
        this.config = config;
        this.role = role;
        this.dataDir = dataDir;
        this.topicTable = DurableTable.load(new MetadataFile(dataDir.config("topics.dat"), METADATA_VERSION),
                TopicConfig::name, MetadataCodecs.TOPIC);
        this.groupTable = DurableTable.load(new MetadataFile(dataDir.config("groups.dat"),
                METADATA_VERSION), GroupConfig::name, MetadataCodecs.GROUP);
        this.offsets = ConsumerOffsets.load(new MetadataFile(dataDir.config("offsets.dat"), METADATA_VERSION));
        this.kvTable = DurableTable.load(new MetadataFile(dataDir.config("kvconfig.dat"),
                METADATA_VERSION), KvConfig::id, KvConfig.CODEC);
        if (role.metadata() != null) {
            topicTable.replicateThrough(TOPICS_TABLE, role.metadata());
            groupTable.replicateThrough(GROUPS_TABLE, role.metadata());
            kvTable.replicateThrough(KV_TABLE, role.metadata());
        }
        final Checkpoint checkpoint = new Checkpoint(dataDir.config("checkpoint"));
        final long recoverFrom = checkpoint.read();
        this.log = CommitLog.open(dataDir.commitLog(), config.segmentSize(), segments);
        this.queues = ConsumeQueueStore.open(dataDir.consumeQueues(), config.queueFileEntries());
        final MessageIndex index = MessageIndex.open(dataDir.index(), config.indexFileEntries());
        this.threads = new StoreThreads();
        final ExecutorService readPool = threads.readPool;
        final ExecutorService adminPool = threads.adminPool;
        this.waiters = new LongPollWaiters(threads.timeouts, readPool, MAX_PARKED_READS);
        this.reader = new QueueReader(log, queues);
        this.queries = new MessageQueries(log, index, reader, queues, topicTable::get);
        final Dispatcher[] dispatcherRef = new Dispatcher[1];
        this.acks = new IndexedAcks(() -> dispatcherRef[0].dispatchedOffset(), new IndexedAcks.Indexer() {
            @Override
            public void wake() {
                dispatcherRef[0].wake();
            }

            @Override
            public void indexHereOrWake() {
                dispatcherRef[0].indexHereOrWake();
            }
        });
        this.flusher = new LogFlusher(log, config.flushMode(), config.flushInterval(), config.flushThresholdBytes(),
                acks, role.replication());
        this.dispatcher = new Dispatcher(log, flusher::visibleOffset, queues, index, this::arrived,
                acks::indexedTo, 0);
        dispatcherRef[0] = dispatcher;

        final long end = StoreRecovery.cut(role.logEnd(), role.follower(),
                StoreRecovery.recover(config, recoverFrom, dataDir.crashed(), log, queues, index, dispatcher),
                log, queues, index);
        final long bootTimestamp = clock.getAsLong();
        final TrafficCounters traffic = new TrafficCounters(bootTimestamp, ZoneId.systemDefault());
        this.availability = new Availability(dataDir.root(), config.diskFullRatio());
        // A follower's appender is fenced; its replication (if any) only bounds what consumers see.
        this.appender = new LogAppender(log, flusher, queues::maxOffset, clock,
                role.follower() ? LogReplication.NONE : role.replication());
        if (role.follower()) {
            appender.fence(new StoreException(StoreError.UNAVAILABLE,
                    "this node is a follower of its cluster; send to the leader"));
        }
        this.topics = new StoreTopics(topicTable, offsets, kvTable, appender, queues, adminPool,
                config.defaultQueueCount(), this::queueSealing);
        this.groups = new StoreGroups(groupTable, offsets, this::popService, adminPool,
                config.autoCreateGroups());
        this.sending = new SendPath(config, clock, availability, topicTable::get, topics, appender,
                this::transactionService, traffic);
        this.pulling = new PullPath(availability, topicTable::get, queues, reader, waiters, readPool,
                config.observer(), traffic, (topic, queue) -> appender.sealedEnd(topic, queue) >= 0);
        this.sealing = new QueueSealing(appender, topicTable::get, topics::createIfAbsent,
                sending::appendSystemRecord, waiters::arrived);
        final DueDelivery due = new DueDelivery(sending, topics, appender);
        this.timers = new TimerService(new TimerStoreAccess(queues, reader, queries, log, topicTable::get,
                due::deliver, sending::appendSystemRecord), clock,
                new MetadataFile(dataDir.config(TimerService.PROGRESS_FILE), TimerService.PROGRESS_VERSION));
        this.pops = new PopService(new PopStoreAccess(topics, groups, topics::createIfAbsent,
                reader, queues, offsets, waiters, readPool, sending::send,
                sending::appendSystemRecord, sending::appendUnforcedSystemRecord, flusher::whenDurable), clock,
                PopSecret.load(dataDir.config("pop-secret")));
        this.transactions = new TransactionService(new TransactionStoreAccess(appender, log, reader, queues, index,
                offsets, config.storeHost(), topicTable::get, due::deliver), clock,
                config.transactionFirstCheck().toMillis(), config.transactionCheckInterval().toMillis(),
                config.transactionMaxChecks(), config.transactionTimeoutResolution());
        final ConsumerRegistry registry = new ConsumerRegistry(clock, CONSUMER_EXPIRY);
        this.consumers = new StoreConsumers(registry, new QueueLocks(clock, QUEUE_LOCK_LEASE), offsets, queues,
                reader, pops, topicTable::get, readPool);
        this.statistics = new StoreStatistics(traffic, bootTimestamp, log, dispatcher::dispatchedOffset, queries,
                dataDir.root(), readPool);
        this.kvConfigs = new StoreKvConfigs(kvTable, adminPool);
        this.recalls = new DelayedRecall(queries, timers, readPool);
        this.popReads = new PopReads(availability, pops, traffic, flusher, dispatcher, threads.timeouts);
        this.checkpoints = new CheckpointWriter(checkpoint, clock, log, queues, index, dispatcher, pops,
                transactions, role.follower());
        this.retention = new Retention(config, clock, dataDir.root(), log, queues, index, dispatcher,
                new CompactedRetention(topicTable::all, reader::read, sending::appendBatch));
        start(end, new Maintenance(config, clock, checkpoints, offsets, availability, retention, registry, traffic,
                pops, transactions));
    }

    private void start(final long end, final Maintenance jobs) throws IOException {
        dispatcher.resetTo(end);
        pops.recover(); // before the first checkpoint, which moves the revive replay positions
        transactions.recover(); // likewise for the half and op replay positions
        sealing.replay(queues, reader); // before the appender takes a write
        checkpoints.writeAll();
        flusher.start();
        if (!role.follower()) {
            appender.start();
        }
        dispatcher.start();
        availability.started();
        if (!role.follower()) {
            timers.start();
        }
        jobs.start(threads.reviver, threads.maintenance, role.follower());
    }

    private PopService popService() {
        return pops;
    }

    private QueueSealing queueSealing() {
        return sealing;
    }

    private TransactionService transactionService() {
        return transactions;
    }

    /**
     * Opens (and recovers) the store.
     *
     * @throws StoreException with a message fit for one error line when the directory is unusable, locked by another
     *                        process or holds corrupt metadata
     */
    public static MessageStore open(final StoreConfig config) {
        return open(config, System::currentTimeMillis, segmentFiles(config));
    }

    /** Segment files reading through a window of the configured size, of this store's own. */
    private static SegmentFileFactory segmentFiles(final StoreConfig config) {
        return MappedWindow.ofSize(config.mappedWindow()).segmentFiles();
    }

    /** Opens the store with a clock and a segment medium of the caller's choosing (tests). */
    public static MessageStore open(final StoreConfig config, final LongSupplier clock,
                                    final SegmentFileFactory segments) {
        return open(config, clock, segments, ReplicaRole.SINGLE);
    }

    /** Opens the store as one replica of a group (see {@link ReplicaRole}). */
    public static MessageStore open(final StoreConfig config, final ReplicaRole role) {
        return open(config, System::currentTimeMillis, segmentFiles(config), role);
    }

    /** Opens the store as one replica of a group, with a clock and a segment medium of the caller's choosing. */
    public static MessageStore open(final StoreConfig config, final LongSupplier clock,
                                    final SegmentFileFactory segments, final ReplicaRole role) {
        final DataDirectory dir = DataDirectory.open(config.dataDir().toAbsolutePath());
        try {
            return new MessageStore(config, dir, clock, segments, role);
        } catch (IOException e) {
            closeQuietly(dir);
            throw new StoreException(StoreError.IO_ERROR, "cannot open the store in " + config.dataDir() + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(dir);
            throw e;
        }
    }

    private static void closeQuietly(final DataDirectory dir) {
        try {
            dir.close();
        } catch (IOException ignored) {
            // Reporting the original failure matters more.
        }
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        return sending.send(message);
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        return sending.sendBatch(messages);
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        return recalls.recall(handle);
    }

    /** Timers parked and not yet due (diagnostics and tests). */
    public int pendingTimers() {
        return timers.pendingCount();
    }

    // ------------------------------------------------------------------------------------------------- transactions

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        if (!availability.running()) {
            return Availability.refused();
        }
        return transactions.end(end);
    }

    @Override
    public void addTransactionChecker(final TransactionChecker checker) {
        transactions.addChecker(checker);
    }

    @Override
    public void removeTransactionChecker(final TransactionChecker checker) {
        transactions.removeChecker(checker);
    }

    /** Checks back (or times out) the due half messages now (tests and diagnostics); returns how many. */
    public int checkTransactionsNow() {
        return transactions.check();
    }

    /** Half messages neither committed nor rolled back yet. */
    public int pendingTransactions() {
        return transactions.pendingCount();
    }

    /** The dispatcher indexed new entries of a queue: wakes the reads parked on it, and the timers for theirs. */
    private void arrived(final String topic, final int queueId) {
        waiters.arrived(topic, queueId);
        final TimerService t = timers; // null while recovery indexes, before the timers exist
        if (t != null && TimerService.TOPIC.equals(topic)) {
            t.wake();
        }
    }

    // ------------------------------------------------------------------------------------------------- reading

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        return pulling.pull(request);
    }

    @Override
    public <R> CompletableFuture<R> pullLent(final PullRequest request, final Function<PullResult, R> reader,
                                             final Consumer<? super R> dropped) {
        return pulling.pullLent(request, reader, dropped);
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        return popReads.pop(request);
    }

    /**
     * Browses once every message whose send completed before the call is indexed (queue entries are built just after
     * a send is acknowledged): a client that sends and then browses sees what it sent.
     */
    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return popReads.browse(request);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return pops.ack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return pops.ack(group, receiptHandles);
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return pops.ackReceipts(group, receipts);
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return pops.changeInvisibleTime(group, receiptHandle, invisibleMillis);
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return pops.nack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return pops.giveBack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return pops.deadLetter(group, receiptHandle);
    }

    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        offsets.commit(group, topic, queueId, offset);
    }

    @Override
    public long queryOffset(final String group, final String topic, final int queueId) {
        return offsets.query(group, topic, queueId);
    }

    @Override
    public long minOffset(final String topic, final int queueId) {
        return queues.minOffset(topic, queueId);
    }

    @Override
    public long maxOffset(final String topic, final int queueId) {
        return queues.maxOffset(topic, queueId);
    }

    @Override
    public Duration retention() {
        return config.retention();
    }

    @Override
    public CompletableFuture<Long> searchOffset(final String topic, final int queueId, final long timestamp) {
        return StoreTasks.supply(threads.readPool, () -> reader.searchOffset(topic, queueId, timestamp));
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        return StoreTasks.supply(threads.readPool, () -> queries.earliestStoreTime(topic, queueId));
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return StoreTasks.supply(threads.readPool, () -> queries.at(commitLogOffset));
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return StoreTasks.supply(threads.readPool, () -> queries.byId(topic, messageId));
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return StoreTasks.supply(threads.readPool, () -> queries.byKey(topic, key, max, beginTimestamp, endTimestamp));
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return StoreTasks.supply(threads.readPool, () -> queries.byTime(topic, beginTimestamp, endTimestamp, max));
    }

    // ------------------------------------------------------------------------------------------------- admin

    @Override
    public Optional<TopicConfig> route(final String topic) {
        return topicTable.get(topic);
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

    @Override
    public Statistics statistics() {
        return statistics;
    }

    @Override
    public KvConfigs kvConfigs() {
        return kvConfigs;
    }

    // ------------------------------------------------------------------------------------------------- replication

    /**
     * A follower ({@link ReplicaRole#writingAhead}) writes a range its group has not committed yet: the
     * leader's exact bytes at {@code offset}. Whatever this log holds from {@code offset} on is cut first: a range
     * the group replaced (Raft sends a range only after every range before it, so the tail past its offset belongs
     * to ranges the group dropped). Nothing is indexed: the range becomes visible once the replication's committed
     * offset passes it ({@link #committedMore}).
     *
     * @throws IOException when {@code offset} is past the log's end (a gap), below what consumers may already see,
     *                     or the write fails
     */
    public void writeAhead(final long offset, final ByteBuffer bytes) throws IOException {
        cutAhead(offset);
        log.appendReplicated(offset, bytes);
    }

    /**
     * Cuts a follower's uncommitted tail at {@code offset} (a range its group dropped). Never below what consumers may
     * see.
     */
    public void cutAhead(final long offset) throws IOException {
        if (!role.follower()) {
            throw new IllegalStateException("only a follower holds ranges written ahead of the commit");
        }
        if (offset < flusher.visibleOffset() || offset < dispatcher.dispatchedOffset()) {
            throw new IOException("cannot cut the log at " + offset + ": consumers may see up to "
                    + Math.max(flusher.visibleOffset(), dispatcher.dispatchedOffset()));
        }
        if (offset < log.writeOffset()) {
            log.truncate(offset);
        }
    }

    /**
     * The group committed more of a follower's written-ahead log: index it. In SYNC mode consumers see forced bytes
     * only, so it is forced first (a no-op when the group's flush already forced it, as it does for every range it
     * wrote ahead; not for ranges fetched from a leader).
     */
    public void committedMore() throws IOException {
        if (config.flushMode() == FlushMode.SYNC) {
            log.force();
        }
        dispatcher.wake();
    }

    /** A copy of the log bytes {@code [from, to)} (a leader sending a range to a follower that lacks it). */
    public ByteBuffer readLog(final long from, final long to) throws IOException {
        if (from < log.minOffset() || to > log.writeOffset() || from > to) {
            throw new IOException("log range [" + from + ", " + to + ") is not in this log (" + log.minOffset() + ".."
                    + log.writeOffset() + ")");
        }
        return log.copyRange(from, to);
    }

    /** Applies a metadata change the group committed (every replica, the leader included, in commit order). */
    public void applyMetadata(final String table, final byte op, final byte[] payload) throws IOException {
        switch (table) {
            case TOPICS_TABLE -> topicTable.apply(op, payload);
            case GROUPS_TABLE -> groupTable.apply(op, payload);
            case KV_TABLE -> kvTable.apply(op, payload);
            default -> throw new IOException("unknown metadata table " + table);
        }
    }

    /** The consumer-offset table when it changed since last shipped (a leader ships it to its followers); else null. */
    public byte[] offsetsToShip() {
        return offsets.shipIfChanged();
    }

    /** A follower takes the leader's consumer-offset table; a leader keeps its own (it is the newer). */
    public void applyShippedOffsets(final byte[] table) {
        if (role.follower()) {
            offsets.applyShipped(table);
        }
    }

    /**
     * Copies whole records of the log from {@code from}, at most about {@code maxBytes} (one larger record is copied
     * whole), never past {@code to}: a leader serving a replica that catches up from a snapshot.
     *
     * @throws IOException when the range is not in this log or does not start at a record
     */
    public ByteBuffer copyLog(final long from, final long to, final int maxBytes) throws IOException {
        if (from < 0 || to > log.writeOffset() || from >= to) {
            throw new IOException("log range [" + from + ", " + to + ") is not in this log (it ends at "
                    + log.writeOffset() + ")");
        }
        final ByteBuffer bytes = log.copyRange(from, Math.min(to, from + maxBytes));
        int pos = 0;
        while (pos + RecordLayout.TOTAL_SIZE_OFFSET + Integer.BYTES <= bytes.limit()) {
            final int size = bytes.getInt(pos + RecordLayout.TOTAL_SIZE_OFFSET);
            if (size <= 0) {
                throw new IOException("no record at log offset " + (from + pos));
            }
            if (pos + (long) size > bytes.limit()) {
                break;
            }
            pos += size;
        }
        if (pos > 0) {
            return bytes.limit(pos);
        }
        // One record larger than maxBytes: copy it whole.
        final int size = log.copyRange(from, from + RecordLayout.TOTAL_SIZE_OFFSET + Integer.BYTES)
                .getInt(RecordLayout.TOTAL_SIZE_OFFSET);
        if (size <= 0 || from + size > to) {
            throw new IOException("no whole record at log offset " + from);
        }
        return log.copyRange(from, from + size);
    }

    /** The metadata tables and the consumer offsets, whole (a leader serving a replica catching up). */
    public Map<String, byte[]> exportTables() throws IOException {
        return Map.of(TOPICS_TABLE, topicTable.export(), GROUPS_TABLE, groupTable.export(), KV_TABLE,
                kvTable.export(), OFFSETS_TABLE, offsets.export());
    }

    /** The consumer groups with at least one live client (a proxy mirrors their clients), sorted. */
    public List<String> liveConsumerGroups() {
        return consumers.liveGroups();
    }

    /** Replaces the tables with a leader's {@link #exportTables} (a follower catching up from a snapshot). */
    public void replaceTables(final Map<String, byte[]> tables) throws IOException {
        if (!role.follower()) {
            throw new IllegalStateException("only a follower's store takes a leader's tables");
        }
        topicTable.replaceAll(tables.get(TOPICS_TABLE));
        groupTable.replaceAll(tables.get(GROUPS_TABLE));
        kvTable.replaceAll(tables.get(KV_TABLE));
        offsets.applyShipped(tables.get(OFFSETS_TABLE));
    }

    /** Where this replica's log ends (written, not necessarily forced). */
    public long logEnd() {
        return log.writeOffset();
    }

    /** Forces the log and returns where it ends (a replica recording how far its log is durable). */
    public long forceLog() throws IOException {
        return log.force();
    }

    /** This store's part in its group. */
    public ReplicaRole role() {
        return role;
    }

    // ------------------------------------------------------------------------------------------------- upkeep

    /** Size, positions and health of the store. */
    public StoreStats stats() {
        return StoreStats.measure(log, queues, dataDir.root(), topicTable.size(), dataDir.crashed());
    }

    /** The offset below which everything is indexed (tests and diagnostics). */
    public long dispatchedOffset() {
        return dispatcher.dispatchedOffset();
    }

    /** Redelivers overdue popped messages now (tests and diagnostics); returns how many. */
    public int reviveNow() {
        return pops.revive();
    }

    /** Popped messages neither acked nor redelivered yet. */
    public int inFlight() {
        return pops.inFlight();
    }

    /** Checkpoints the POP reviver keeps by deadline, open or closed and not swept yet (tests and diagnostics). */
    public int popCheckpointsTracked() {
        return pops.checkpointsTracked();
    }

    /** Runs retention now (tests). */
    void runRetention() {
        retention.apply();
    }

    /**
     * Stops gracefully: refuses new sends, writes and forces what was accepted, indexes it, writes the checkpoint
     * and offsets, and marks the shutdown clean.
     */
    @Override
    public void close() {
        if (!availability.running()) {
            return;
        }
        availability.stopped();
        try {
            threads.stopRevive();
            timers.close();
            appender.close();
            flusher.close();
            timers.saveProgress();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (dispatcher.dispatchedOffset() < flusher.visibleOffset() && System.nanoTime() < deadline) {
                dispatcher.wake();
                Thread.onSpinWait();
            }
            dispatcher.close();
            acks.releaseAll();
            waiters.wakeAll();
            threads.stopMaintenance();
            checkpoints.writeAll();
            offsets.persistIfChanged();
            threads.stopPools();
            final boolean clean = flusher.failure() == null;
            log.close();
            if (clean) {
                dataDir.markClean();
            }
            dataDir.close();
            LOG.info("Store closed{}", clean ? " cleanly" : " after a flush failure (recovery will run at start)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.error("Interrupted while closing the store");
        } catch (IOException e) {
            LOG.error("Closing the store failed; recovery will run at the next start", e);
        }
    }
}
