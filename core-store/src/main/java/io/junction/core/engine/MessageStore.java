package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.Receipt;
import io.junction.core.RecallHandle;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.index.MessageIndex;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.io.SegmentFileFactory;
import io.junction.core.log.CommitLog;
import io.junction.core.log.LogAppender;
import io.junction.core.log.LogFlusher;
import io.junction.core.log.RecordCodec;
import io.junction.core.log.RecordDescriptor;
import io.junction.core.message.Message;
import io.junction.core.message.MessageIds;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.KvConfig;
import io.junction.core.meta.MetadataCodecs;
import io.junction.core.meta.MetadataFile;
import io.junction.core.meta.TopicConfig;
import io.junction.core.queue.ConsumeQueue;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.group.ConsumerRegistry;
import io.junction.core.group.QueueLocks;
import io.junction.core.pop.PopService;
import io.junction.core.queue.Dispatcher;
import io.junction.core.stats.TrafficCounters;
import io.junction.core.timer.DeliveryTime;
import io.junction.core.timer.TimerMessages;
import io.junction.core.timer.TimerService;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionMessages;
import io.junction.core.txn.TransactionService;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local store and the {@link Messaging} facade over it.
 *
 * <p>Design: the parts are wired here and nowhere else. Senders render their record on their own thread and hand it
 * to the {@link LogAppender} (one writer); the {@link LogFlusher} makes it durable and completes the send; the
 * {@link Dispatcher} follows the log into consume queues and the id/key index and wakes parked reads; reads and
 * queries run on a small reader pool so a caller's event loop never touches the disk; one maintenance thread writes
 * checkpoints and offsets, watches the disk and applies retention. Opening the store recovers it: it re-verifies
 * and re-indexes the log from the last checkpoint and cuts a torn tail.
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
    private static final int MAX_PARKED_READS = 100_000;
    /** A consumer client missing heartbeats this long is dropped (RocketMQ: 120 s). */
    private static final Duration CONSUMER_EXPIRY = Duration.ofSeconds(120);
    /** Queue locks not renewed this long expire (RocketMQ: 60 s). */
    private static final Duration QUEUE_LOCK_LEASE = Duration.ofSeconds(60);
    /** Bounds of the period at which due transaction check-backs are looked for. */
    private static final long TRANSACTION_SCAN_MIN_MILLIS = 100;
    private static final long TRANSACTION_SCAN_MAX_MILLIS = 1000;

    private final StoreConfig config;
    private final DataDirectory dataDir;
    private final LongSupplier clock;
    private final DurableTable<TopicConfig> topicTable;
    private final DurableTable<GroupConfig> groupTable;
    private final ConsumerOffsets offsets;
    private final Checkpoint checkpoint;
    private final CommitLog log;
    private final ConsumeQueueStore queues;
    private final MessageIndex index;
    private final LogFlusher flusher;
    private final LogAppender appender;
    private final Dispatcher dispatcher;
    private final QueueReader reader;
    private final CompactedRetention compacted;
    private final MessageQueries queries;
    private final ExecutorService readPool;
    private final ExecutorService adminPool;
    private final ScheduledExecutorService maintenance;
    private final ScheduledExecutorService timer;
    private final LongPollWaiters waiters;
    private final TimerService timers;
    private final PopService pops;
    private final TransactionService transactions;
    private final StoreConsumers consumers;
    private final ConsumerRegistry registry;
    private final ScheduledExecutorService reviver;
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final StoreTopics topics;
    private final StoreGroups groups;
    private final TrafficCounters traffic;
    private final StoreStatistics statistics;
    private final StoreKvConfigs kvConfigs;
    private volatile boolean running;
    private volatile boolean diskFull;
    private volatile long lastCheckpoint;

    private MessageStore(final StoreConfig config, final DataDirectory dataDir, final LongSupplier clock,
                         final SegmentFileFactory segments) throws IOException {
        this.config = config;
        this.dataDir = dataDir;
        this.clock = clock;
        this.topicTable = DurableTable.load(new MetadataFile(dataDir.config("topics.dat"), METADATA_VERSION),
                TopicConfig::name, MetadataCodecs.TOPIC);
        this.groupTable = DurableTable.load(new MetadataFile(dataDir.config("groups.dat"), METADATA_VERSION),
                GroupConfig::name, MetadataCodecs.GROUP);
        this.offsets = ConsumerOffsets.load(new MetadataFile(dataDir.config("offsets.dat"), METADATA_VERSION));
        final DurableTable<KvConfig> kvTable = DurableTable.load(new MetadataFile(dataDir.config("kvconfig.dat"),
                METADATA_VERSION), KvConfig::id, KvConfig.CODEC);
        this.checkpoint = new Checkpoint(dataDir.config("checkpoint"));
        final long recoverFrom = checkpoint.read();
        this.log = CommitLog.open(dataDir.commitLog(), config.segmentSize(), segments);
        this.queues = ConsumeQueueStore.open(dataDir.consumeQueues(), config.queueFileEntries());
        this.index = MessageIndex.open(dataDir.index(), config.indexFileEntries());
        this.maintenance = Executors.newSingleThreadScheduledExecutor(named("junction-store-maintenance"));
        final ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, named("junction-store-timer"));
        timeouts.setRemoveOnCancelPolicy(true); // a cancelled long poll's time-out must not keep the read alive
        this.timer = timeouts;
        this.readPool = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()),
                named("junction-store-read"));
        this.adminPool = Executors.newSingleThreadExecutor(named("junction-store-admin"));
        this.waiters = new LongPollWaiters(timer, readPool, MAX_PARKED_READS);
        this.reader = new QueueReader(log, queues);
        this.compacted = new CompactedRetention(topicTable::all, reader::read, this::appendBatch);
        this.queries = new MessageQueries(log, index, reader, queues, topicTable::get);
        final Dispatcher[] dispatcherRef = new Dispatcher[1];
        this.flusher = new LogFlusher(log, config.flushMode(), config.flushInterval(), config.flushThresholdBytes(),
                () -> dispatcherRef[0].wake());
        this.dispatcher = new Dispatcher(log, flusher::visibleOffset, queues, index, waiters::arrived, 0);
        dispatcherRef[0] = dispatcher;

        final long started = System.nanoTime();
        final int maxRecordSize = RecordDescriptor.recordLength(RecordDescriptor.SYS_FLAG_BORN_HOST_V6
                        | RecordDescriptor.SYS_FLAG_STORE_HOST_V6, config.maxMessageSize(),
                RecordDescriptor.MAX_TOPIC_LENGTH, RecordDescriptor.MAX_PROPERTIES_LENGTH);
        final long end = log.recover(recoverFrom, maxRecordSize, (view, pos, size) -> {
            try {
                dispatcher.index(view, pos);
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "re-indexing failed: " + e.getMessage(), e);
            }
        });
        queues.truncate(end);
        index.truncate(end);
        queues.dropBelow(log.minOffset());
        LOG.info("Store recovered in {} ms: log {}..{}{}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                log.minOffset(), end, dataDir.crashed() ? " (after a crash: re-verified from offset "
                        + recoverFrom + ")" : "");
        this.appender = new LogAppender(log, flusher, queues::maxOffset, clock);
        this.topics = new StoreTopics(topicTable, offsets, appender, queues, adminPool, config.defaultQueueCount());
        this.groups = new StoreGroups(groupTable, offsets, this::popService, adminPool,
                config.autoCreateGroups());
        this.timers = new TimerService(new TimerStoreAccess(queues, reader, queries, log, topicTable::get,
                m -> routed(m, DeliveryTime.NONE), this::appendSystemRecord), clock,
                new MetadataFile(dataDir.config(TimerService.PROGRESS_FILE), TimerService.PROGRESS_VERSION));
        this.reviver = Executors.newSingleThreadScheduledExecutor(named("junction-pop-revive"));
        this.pops = new PopService(new PopStoreAccess(topics, groups, topics::createIfAbsent,
                reader, queues, offsets, waiters, readPool, this::send,
                this::appendSystemRecord), clock,
                PopSecret.load(dataDir.config("pop-secret")));
        this.transactions = new TransactionService(new TransactionStoreAccess(appender, log, reader, queues, index,
                offsets, config.storeHost(), topicTable::get, m -> routed(m, DeliveryTime.NONE)), clock,
                config.transactionFirstCheck().toMillis(), config.transactionCheckInterval().toMillis(),
                config.transactionMaxChecks(), config.transactionTimeoutResolution());
        this.registry = new ConsumerRegistry(clock, CONSUMER_EXPIRY);
        this.consumers = new StoreConsumers(registry, new QueueLocks(clock, QUEUE_LOCK_LEASE), offsets, queues,
                reader, pops, topicTable::get, readPool);
        final long bootTimestamp = clock.getAsLong();
        this.traffic = new TrafficCounters(bootTimestamp, ZoneId.systemDefault());
        this.statistics = new StoreStatistics(traffic, bootTimestamp, log, dispatcher::dispatchedOffset, queries,
                dataDir.root(), readPool);
        this.kvConfigs = new StoreKvConfigs(kvTable, adminPool);
        this.dispatcherStart(end);
    }

    private void dispatcherStart(final long end) throws IOException {
        dispatcher.resetTo(end);
        pops.recover(); // before the first checkpoint, which moves the revive replay positions
        transactions.recover(); // likewise for the half and op replay positions
        writeCheckpoint();
        flusher.start();
        appender.start();
        dispatcher.start();
        running = true;
        timers.start();
        final long revive = config.popReviveInterval().toMillis();
        reviver.scheduleWithFixedDelay(this::reviveQuietly, revive, revive, TimeUnit.MILLISECONDS);
        maintenance.scheduleWithFixedDelay(this::checkpointQuietly, 1, 1, TimeUnit.SECONDS);
        final long transactionScan = transactionScanMillis(config);
        maintenance.scheduleWithFixedDelay(this::checkTransactionsQuietly, transactionScan, transactionScan,
                TimeUnit.MILLISECONDS);
        maintenance.scheduleWithFixedDelay(this::persistOffsetsQuietly, 5, 5, TimeUnit.SECONDS);
        maintenance.scheduleWithFixedDelay(this::watchDisk, 0, 1, TimeUnit.SECONDS);
        maintenance.scheduleWithFixedDelay(registry::expire, 10, 10, TimeUnit.SECONDS);
        maintenance.scheduleWithFixedDelay(this::applyRetention, 10, 10, TimeUnit.SECONDS);
        maintenance.scheduleAtFixedRate(() -> traffic.sample(clock.getAsLong()), 1, 1, TimeUnit.SECONDS);
    }

    /**
     * How often due transaction check-backs are looked for: once a second, more often when checks are configured
     * only a few seconds apart (so a check comes within a fifth of its delay of its time), never more than ten times a
     * second.
     */
    static long transactionScanMillis(final StoreConfig config) {
        final long shortest = Math.min(config.transactionFirstCheck().toMillis(),
                config.transactionCheckInterval().toMillis());
        return Math.max(TRANSACTION_SCAN_MIN_MILLIS, Math.min(TRANSACTION_SCAN_MAX_MILLIS, shortest / 5));
    }

    /**
     * Opens (and recovers) the store.
     *
     * @throws StoreException with a message fit for one error line when the directory is unusable, locked by another
     *                        process or holds corrupt metadata
     */
    public static MessageStore open(final StoreConfig config) {
        return open(config, System::currentTimeMillis, MappedSegmentFile.FACTORY);
    }

    /** Opens the store with a clock and a segment medium of the caller's choosing (tests). */
    public static MessageStore open(final StoreConfig config, final LongSupplier clock,
                                    final SegmentFileFactory segments) {
        final DataDirectory dir = DataDirectory.open(config.dataDir().toAbsolutePath());
        try {
            return new MessageStore(config, dir, clock, segments);
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

    // ------------------------------------------------------------------------------------------------- sending

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        try {
            final StoreException refusal = admissionFailure(message);
            if (refusal != null) {
                return CompletableFuture.failedFuture(refusal);
            }
            final long now = clock.getAsLong();
            final long deliverAt = DeliveryTime.resolve(message.properties(), now, config.maxDelay());
            return routed(message, deliverAt > now ? deliverAt : DeliveryTime.NONE);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        try {
            final StoreException refusal = batchFailure(messages);
            if (refusal != null) {
                return CompletableFuture.failedFuture(refusal);
            }
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final String name = messages.get(0).topic();
        final Optional<TopicConfig> topic = topicTable.get(name);
        if (topic.isPresent()) {
            return appendBatch(messages, topic.get());
        }
        if (!config.autoCreateTopics()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.TOPIC_NOT_FOUND,
                    "topic " + name + " does not exist"));
        }
        return topics.createIfAbsent(name).thenCompose(t -> appendBatch(messages, t));
    }

    /** Why a batch cannot be stored as a whole, or null: every member is checked before anything is written. */
    private StoreException batchFailure(final List<Message> messages) {
        if (messages.isEmpty()) {
            return new StoreException(StoreError.ILLEGAL_ARGUMENT, "the batch is empty");
        }
        final Message first = messages.get(0);
        final long now = clock.getAsLong();
        long bodies = 0;
        for (int i = 0; i < messages.size(); i++) {
            final Message m = messages.get(i);
            final StoreException refusal = admissionFailure(m);
            if (refusal != null) {
                return new StoreException(refusal.error(), "batch member " + i + ": " + refusal.getMessage());
            }
            if (!m.topic().equals(first.topic()) || m.queueId() != first.queueId()) {
                return new StoreException(StoreError.ILLEGAL_ARGUMENT, "batch member " + i
                        + ": all members of a batch go to one topic and one queue");
            }
            if (TransactionMessages.isHalf(m)
                    || DeliveryTime.resolve(m.properties(), now, config.maxDelay()) > now) {
                return new StoreException(StoreError.ILLEGAL_MESSAGE, "batch member " + i
                        + ": delayed and transactional messages cannot be sent in a batch");
            }
            bodies += m.body().length;
        }
        if (bodies > config.maxMessageSize()) {
            return new StoreException(StoreError.MESSAGE_TOO_LARGE, "the bodies of the batch add up to " + bodies
                    + " bytes, which exceeds the maximum of " + config.maxMessageSize());
        }
        return null;
    }

    private CompletableFuture<List<SendResult>> appendBatch(final List<Message> messages, final TopicConfig topic) {
        if (!topic.writable()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.PERMISSION_DENIED,
                    "topic " + topic.name() + " is not writable"));
        }
        final Message first = messages.get(0);
        int queueId = first.queueId();
        if (queueId == Message.ANY_QUEUE) {
            final String group = first.messageGroup();
            queueId = group != null ? Math.floorMod(group.hashCode(), topic.queueCount())
                    : Math.floorMod(roundRobin.getAndIncrement(), topic.queueCount());
        } else if (queueId < 0 || queueId >= topic.queueCount()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.QUEUE_NOT_FOUND, "queue " + queueId
                    + " of topic " + topic.name() + " does not exist (it has " + topic.queueCount() + ")"));
        }
        final BatchRecords records;
        try {
            records = BatchRecords.encode(messages, config.storeHost());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        if (records.buffer().remaining() > config.segmentSize() - RecordDescriptor.BLANK_LENGTH) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.MESSAGE_TOO_LARGE, "a batch of "
                    + records.buffer().remaining() + " bytes does not fit one log segment"));
        }
        final long startNanos = System.nanoTime();
        final String topicName = topic.name();
        final int finalQueueId = queueId;
        return appender.appendBatch(records.buffer(), records.starts(), topicName, finalQueueId).thenApply(r -> {
            final long elapsed = System.nanoTime() - startNanos;
            final List<SendResult> results = new ArrayList<>(messages.size());
            for (int k = 0; k < messages.size(); k++) {
                config.observer().messageStored(topicName, records.length(k), elapsed);
                traffic.stored(1);
                results.add(new SendResult(records.uniqueIds()[k], topicName, finalQueueId, r.queueOffset() + k,
                        r.physicalOffset() + records.starts()[k], config.storeHost()));
            }
            return results;
        });
    }

    /** Looks up (or auto-creates) the topic and appends; {@code deliverAt} other than NONE parks it as a timer. */
    private CompletableFuture<SendResult> routed(final Message message, final long deliverAt) {
        final Optional<TopicConfig> topic = topicTable.get(message.topic());
        if (topic.isPresent()) {
            return append(message, topic.get(), deliverAt);
        }
        if (!config.autoCreateTopics()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.TOPIC_NOT_FOUND,
                    "topic " + message.topic() + " does not exist"));
        }
        return topics.createIfAbsent(message.topic()).thenCompose(t -> append(message, t, deliverAt));
    }

    private StoreException admissionFailure(final Message message) {
        if (!running) {
            return new StoreException(StoreError.UNAVAILABLE, "store is not running");
        }
        if (diskFull) {
            return new StoreException(StoreError.DISK_FULL, "disk usage is above " + config.diskFullRatio() * 100
                    + "%: sends are refused until space is freed");
        }
        if (!TopicNames.isValid(message.topic())) {
            return new StoreException(StoreError.ILLEGAL_ARGUMENT, "topic name '" + message.topic()
                    + "' is not valid");
        }
        if (TimerService.TOPIC.equals(message.topic()) || TransactionMessages.isSystemTopic(message.topic())) {
            return new StoreException(StoreError.ILLEGAL_ARGUMENT, "topic " + message.topic()
                    + " is reserved for the store");
        }
        if (message.body().length > config.maxMessageSize()) {
            return new StoreException(StoreError.MESSAGE_TOO_LARGE, "body of " + message.body().length
                    + " bytes exceeds the maximum of " + config.maxMessageSize());
        }
        for (var e : message.properties().entrySet()) {
            if (!MessageProperties.isEncodable(e.getKey()) || !MessageProperties.isEncodable(e.getValue())) {
                return new StoreException(StoreError.ILLEGAL_MESSAGE, "property '" + e.getKey()
                        + "' contains a reserved separator character (\\u0001 or \\u0002)");
            }
        }
        return null;
    }

    private CompletableFuture<SendResult> append(final Message original, final TopicConfig topic,
                                                 final long deliverAt) {
        if (!topic.writable()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.PERMISSION_DENIED,
                    "topic " + topic.name() + " is not writable"));
        }
        int queueId = original.queueId();
        if (queueId == Message.ANY_QUEUE) {
            final String group = original.messageGroup();
            queueId = group != null ? Math.floorMod(group.hashCode(), topic.queueCount())
                    : Math.floorMod(roundRobin.getAndIncrement(), topic.queueCount());
        } else if (queueId < 0 || queueId >= topic.queueCount()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.QUEUE_NOT_FOUND, "queue " + queueId
                    + " of topic " + topic.name() + " does not exist (it has " + topic.queueCount() + ")"));
        }
        Message message = original;
        String uniqueId = original.uniqueId();
        final boolean assignId = uniqueId == null || uniqueId.isEmpty();
        if (assignId) {
            uniqueId = MessageIds.newUniqueId();
        }
        final boolean special = TransactionMessages.isHalf(message) || deliverAt != DeliveryTime.NONE;
        if (assignId && special) {
            message = Message.builder(original.topic()).body(original.body()).flag(original.flag())
                    .properties(original.properties()).uniqueId(uniqueId).sysFlag(original.sysFlag())
                    .bornTimestamp(original.bornTimestamp()).bornHost(original.bornHost())
                    .reconsumeTimes(original.reconsumeTimes()).build();
        }
        if (TransactionMessages.isHalf(message)) {
            return transactions.prepare(message, topic.name(), queueId); // a delay a half message asks for is ignored
        }
        if (deliverAt != DeliveryTime.NONE) {
            return appendTimer(message, topic.name(), queueId, deliverAt, uniqueId);
        }
        final ByteBuffer record;
        try {
            // A normal send gets its assigned id appended to the property string: no copy of the message.
            record = RecordCodec.encode(message, config.storeHost(), assignId ? uniqueId : null);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        final long startNanos = System.nanoTime();
        final String id = uniqueId;
        final int finalQueueId = queueId;
        final String topicName = topic.name();
        return appender.append(record, topicName, finalQueueId).thenApply(r -> {
            config.observer().messageStored(topicName, r.size(), System.nanoTime() - startNanos);
            traffic.stored(1);
            return new SendResult(id, topicName, finalQueueId, r.queueOffset(), r.physicalOffset(),
                    config.storeHost());
        });
    }

    /**
     * Parks a delayed message in the timer topic; the send completes when that record is durable. The result names
     * the real topic and queue; its offsets are the parked record's (the delivered copy gets its own later).
     */
    private CompletableFuture<SendResult> appendTimer(final Message message, final String topicName, final int queueId,
                                                      final long deliverAt, final String uniqueId) {
        final ByteBuffer record;
        try {
            record = RecordCodec.encode(TimerMessages.park(message, topicName, queueId, deliverAt),
                    config.storeHost());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        final long startNanos = System.nanoTime();
        return appender.append(record, TimerService.TOPIC, 0).thenApply(r -> {
            config.observer().messageStored(topicName, r.size(), System.nanoTime() - startNanos);
            traffic.stored(1);
            return new SendResult(uniqueId, topicName, queueId, r.queueOffset(), r.physicalOffset(),
                    config.storeHost());
        });
    }

    /**
     * Appends a record of a delivery feature's own (a timer's recall marker, a POP checkpoint or ack) to its queue of a
     * system topic that exists: no id is assigned and none of a client message's checks apply.
     */
    private CompletableFuture<SendResult> appendSystemRecord(final Message record) {
        if (!running) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE, "store is not running"));
        }
        final ByteBuffer encoded;
        try {
            encoded = RecordCodec.encode(record, config.storeHost());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        final String topic = record.topic();
        final int queueId = record.queueId();
        return appender.append(encoded, topic, queueId).thenApply(r -> new SendResult(record.uniqueId(), topic,
                queueId, r.queueOffset(), r.physicalOffset(), config.storeHost()));
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        // The handle names the parked record's log offset: read that one record and check it is the message meant.
        return CompletableFuture.supplyAsync(() -> queries.at(handle.logOffset()), readPool)
                .exceptionally(failure -> Optional.empty())
                .thenCompose(found -> {
                    final StoredMessage parked = found.orElse(null);
                    if (parked == null || !TimerService.TOPIC.equals(parked.topic())
                            || TimerMessages.recalledId(parked) != null
                            || !handle.uniqueId().equals(parked.uniqueId())
                            || !handle.topic().equals(parked.property(MessageProperties.REAL_TOPIC))
                            || TimerMessages.deliverAt(parked) != handle.deliverAt()) {
                        return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                                "no delayed message of topic " + handle.topic() + " has this recall handle"));
                    }
                    return timers.recall(parked);
                });
    }

    /** Timers parked and not yet due (diagnostics and tests). */
    public int pendingTimers() {
        return timers.pendingCount();
    }

    // ------------------------------------------------------------------------------------------------- transactions

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        if (!running) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE, "store is not running"));
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

    private void checkTransactionsQuietly() {
        try {
            transactions.check();
        } catch (RuntimeException e) {
            LOG.error("Transaction check-back failed; will retry", e);
        }
    }

    // ------------------------------------------------------------------------------------------------- reading

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        if (!running) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE, "store is not running"));
        }
        final Optional<TopicConfig> topic = topicTable.get(request.topic());
        if (topic.isEmpty() || request.queueId() < 0 || request.queueId() >= topic.get().queueCount()) {
            return CompletableFuture.completedFuture(PullResult.empty(PullStatus.NO_SUCH_QUEUE, 0, 0, 0));
        }
        if (!topic.get().readable()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.PERMISSION_DENIED,
                    "topic " + request.topic() + " is not readable"));
        }
        final CompletableFuture<PullResult> result = new CompletableFuture<>();
        // A reader at the end of its queue (a caught-up consumer pulling again) parks at once, on the caller's
        // thread: parking only queues it, and a read task that would find nothing cost a hand-over to a reading
        // thread and its wake-up for every message of a fan-out.
        if (request.maxWaitMillis() > 0 && queues.maxOffset(request.topic(), request.queueId()) == request.offset()
                && park(request, result)) {
            return result;
        }
        readPool.execute(() -> readOrPark(request, result, true));
        return result;
    }

    /** Parks a pull until its queue gets an entry; false when too many reads are parked already. */
    private boolean park(final PullRequest request, final CompletableFuture<PullResult> result) {
        final LongPollWaiters.Parked parked = waiters.park(request.topic(), request.queueId(),
                request.maxWaitMillis(), () -> readOrPark(request, result, false));
        if (parked == null) {
            return false;
        }
        // A reader that gives up (cancels the future: its client left) frees the parked read now.
        result.whenComplete((x, e) -> {
            if (result.isCancelled()) {
                parked.cancel();
            }
        });
        // An entry may have landed between the look at the queue and the parking: look once more.
        if (queues.maxOffset(request.topic(), request.queueId()) > request.offset()) {
            waiters.arrived(request.topic(), request.queueId());
        }
        return true;
    }

    private void readOrPark(final PullRequest request, final CompletableFuture<PullResult> result,
                            final boolean mayPark) {
        try {
            final PullResult r = reader.read(request);
            if (r.status() == PullStatus.NO_NEW_MESSAGE && mayPark && request.maxWaitMillis() > 0 && running
                    && park(request, result)) {
                return;
            }
            if (r.status() == PullStatus.FOUND) {
                long bytes = 0;
                for (StoredMessage m : r.messages()) {
                    bytes += m.size();
                }
                config.observer().messagesDelivered(request.topic(), r.messages().size(), bytes);
            }
            traffic.read(request.group(), request.topic(),
                    r.status() == PullStatus.FOUND ? r.messages().size() : 0);
            result.complete(r);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        if (!running) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE, "store is not running"));
        }
        final CompletableFuture<PopResult> popped = pops.pop(request);
        // Counted on the side: the caller gets the pop's own future, whose cancelling frees a parked pop.
        popped.thenAccept(r -> traffic.read(request.group(), request.topic(), r.messages().size()));
        return popped;
    }

    /**
     * Browses once every message whose send completed before the call is indexed (queue entries are built just after
     * a send is acknowledged): a client that sends and then browses sees what it sent.
     */
    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        if (!running) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.UNAVAILABLE, "store is not running"));
        }
        return indexedUpTo(flusher.visibleOffset()).thenCompose(x -> pops.browse(request));
    }

    /** Completes once the dispatcher has indexed the log below {@code offset} (after a second at most). */
    private CompletableFuture<Void> indexedUpTo(final long offset) {
        if (dispatcher.dispatchedOffset() >= offset) {
            return CompletableFuture.completedFuture(null);
        }
        final CompletableFuture<Void> indexed = new CompletableFuture<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        dispatcher.wake();
        timer.schedule(new Runnable() {
            @Override
            public void run() {
                if (dispatcher.dispatchedOffset() >= offset || System.nanoTime() > deadline) {
                    indexed.complete(null);
                } else {
                    timer.schedule(this, 1, TimeUnit.MILLISECONDS);
                }
            }
        }, 1, TimeUnit.MILLISECONDS);
        return indexed;
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
        return CompletableFuture.supplyAsync(() -> reader.searchOffset(topic, queueId, timestamp), readPool);
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        return CompletableFuture.supplyAsync(() -> queries.earliestStoreTime(topic, queueId), readPool);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return CompletableFuture.supplyAsync(() -> queries.at(commitLogOffset), readPool);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return CompletableFuture.supplyAsync(() -> queries.byId(topic, messageId), readPool);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return CompletableFuture.supplyAsync(() -> queries.byKey(topic, key, max, beginTimestamp, endTimestamp),
                readPool);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return CompletableFuture.supplyAsync(() -> queries.byTime(topic, beginTimestamp, endTimestamp, max),
                readPool);
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

    // ------------------------------------------------------------------------------------------------- upkeep

    /** Size, positions and health of the store. */
    public StoreStats stats() {
        long queueBytes = 0;
        for (ConsumeQueue q : queues.all()) {
            queueBytes += (q.maxOffset() - q.minOffset()) * io.junction.core.queue.QueueEntryDescriptor.ENTRY_LENGTH;
        }
        long free = -1;
        try {
            free = java.nio.file.Files.getFileStore(dataDir.root()).getUsableSpace();
        } catch (IOException ignored) {
            // Reported as unknown.
        }
        return new StoreStats(log.writeOffset() - log.minOffset() + queueBytes, free, log.minOffset(),
                log.writeOffset(), log.flushedOffset(), topicTable.size(), dataDir.crashed(),
                log.damagedRecords());
    }

    /** The offset below which everything is indexed (tests and diagnostics). */
    public long dispatchedOffset() {
        return dispatcher.dispatchedOffset();
    }

    private void writeCheckpoint() throws IOException {
        pops.commitRevivePositions(q -> queues.maxOffset(PopService.REVIVE_TOPIC, q));
        transactions.commitReplayPositions();
        final long indexed = dispatcher.dispatchedOffset();
        queues.flush();
        index.flush();
        final long durable = Math.min(indexed, log.flushedOffset());
        if (durable != lastCheckpoint) {
            checkpoint.write(durable, clock.getAsLong());
            lastCheckpoint = durable;
        }
    }

    private void reviveQuietly() {
        try {
            pops.revive();
        } catch (RuntimeException e) {
            LOG.error("POP revive failed; will retry", e);
        }
    }

    private PopService popService() {
        return pops;
    }

    /** Redelivers overdue popped messages now (tests and diagnostics); returns how many. */
    public int reviveNow() {
        return pops.revive();
    }

    /** Popped messages neither acked nor redelivered yet. */
    public int inFlight() {
        return pops.inFlight();
    }

    private void checkpointQuietly() {
        try {
            writeCheckpoint();
        } catch (IOException | RuntimeException e) {
            LOG.error("Writing the checkpoint failed (recovery will re-verify more of the log)", e);
        }
    }

    private void persistOffsetsQuietly() {
        try {
            offsets.persistIfChanged();
        } catch (IOException | RuntimeException e) {
            LOG.error("Saving consumer offsets failed; will retry", e);
        }
    }

    private void watchDisk() {
        try {
            final var store = java.nio.file.Files.getFileStore(dataDir.root());
            final double used = 1.0 - (double) store.getUsableSpace() / store.getTotalSpace();
            final boolean full = used >= config.diskFullRatio();
            if (full != diskFull) {
                LOG.warn(full ? "Disk {} is {}% used: refusing sends" : "Disk {} back to {}% used: accepting sends",
                        dataDir.root(), Math.round(used * 100));
                diskFull = full;
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot read disk usage of {}", dataDir.root(), e);
        }
    }

    private void applyRetention() {
        try {
            final long cutoff = clock.getAsLong() - config.retention().toMillis();
            boolean deleted = false;
            while (true) {
                final var segments = log.segments();
                if (segments.size() < 2) {
                    break;
                }
                final double used = diskUsedRatio();
                final long nextStart = segments.get(1).baseOffset();
                final ByteBuffer first = log.readRecord(nextStart);
                final long endTime = first == null ? Long.MAX_VALUE
                        : RecordCodec.storeTimestamp(first, 0);
                final boolean expired = endTime < cutoff;
                if ((!expired && used < config.maxDiskUsedRatio()) || nextStart > dispatcher.dispatchedOffset()) {
                    break;
                }
                if (!keepCompacted(nextStart, expired)) {
                    break;
                }
                if (!log.deleteOldest()) {
                    break;
                }
                deleted = true;
                LOG.info("Retention: deleted log segment {} ({})", segments.get(0),
                        expired ? "expired" : "disk above " + Math.round(config.maxDiskUsedRatio() * 100) + "%");
            }
            if (deleted) {
                queues.dropBelow(log.minOffset());
                index.dropBelow(log.minOffset());
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("Retention failed; will retry", e);
        }
    }

    /**
     * Copies the latest message of each key of compacted topics below {@code nextStart} to their queues' ends before
     * the segment goes; false when that failed and the segment must stay (an expired one: the copies are tried again
     * next time). A segment deleted for disk space goes even when the copies fail (a full disk refuses them): a full
     * disk would otherwise never be relieved.
     */
    private boolean keepCompacted(final long nextStart, final boolean expired) {
        try {
            compacted.carryForward(nextStart).get(60, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("Retention: cannot keep the latest values of compacted topics below log offset {}{}",
                    nextStart, expired ? "; the segment stays" : "; deleting the segment for disk space", e);
            return !expired;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private double diskUsedRatio() throws IOException {
        final var store = java.nio.file.Files.getFileStore(dataDir.root());
        return 1.0 - (double) store.getUsableSpace() / store.getTotalSpace();
    }

    /** Runs retention now (tests). */
    void runRetention() {
        applyRetention();
    }

    /**
     * Stops gracefully: refuses new sends, writes and forces what was accepted, indexes it, writes the checkpoint
     * and offsets, and marks the shutdown clean.
     */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        try {
            reviver.shutdown();
            reviver.awaitTermination(5, TimeUnit.SECONDS);
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
            waiters.wakeAll();
            maintenance.shutdown();
            maintenance.awaitTermination(5, TimeUnit.SECONDS);
            writeCheckpoint();
            offsets.persistIfChanged();
            readPool.shutdown();
            adminPool.shutdown();
            timer.shutdownNow();
            readPool.awaitTermination(5, TimeUnit.SECONDS);
            adminPool.awaitTermination(5, TimeUnit.SECONDS);
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

    private static java.util.concurrent.ThreadFactory named(final String name) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(r, n.getAndIncrement() == 0 ? name : name + "-" + n.get());
            t.setDaemon(true);
            return t;
        };
    }
}
