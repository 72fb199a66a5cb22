package io.junction.core.engine;

import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.log.LogAppender;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.Message;
import io.junction.core.message.MessageIds;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.RecordLayout;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicNames;
import io.junction.core.stats.TrafficCounters;
import io.junction.core.timer.DeliveryTime;
import io.junction.core.timer.TimerMessages;
import io.junction.core.timer.TimerService;
import io.junction.core.txn.TransactionMessages;
import io.junction.core.txn.TransactionService;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The way of a message into the log: admission (running, disk, names, sizes, encodable properties), the topic
 * looked up or auto-created, the queue chosen, and then one of three routes: a half message to the transaction
 * service, a message due later to the timer topic, any other straight to the {@link LogAppender}. Its record is
 * rendered on the caller's thread; the send completes when the record is durable.
 */
final class SendPath {
    private final StoreConfig config;
    private final LongSupplier clock;
    private final Availability availability;
    private final Function<String, Optional<TopicConfig>> topicLookup;
    private final StoreTopics topics;
    private final LogAppender appender;
    /** Supplied late: the transaction service itself sends through this path when a half message is committed. */
    private final Supplier<TransactionService> transactions;
    private final TrafficCounters traffic;
    private final AtomicInteger roundRobin = new AtomicInteger();

    SendPath(final StoreConfig config, final LongSupplier clock, final Availability availability,
             final Function<String, Optional<TopicConfig>> topicLookup, final StoreTopics topics,
             final LogAppender appender, final Supplier<TransactionService> transactions,
             final TrafficCounters traffic) {
        this.config = config;
        this.clock = clock;
        this.availability = availability;
        this.topicLookup = topicLookup;
        this.topics = topics;
        this.appender = appender;
        this.transactions = transactions;
        this.traffic = traffic;
    }

    /** A client's send: admitted, then routed; a deliver time in its properties parks it as a timer. */
    CompletableFuture<SendResult> send(final Message message) {
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

    /** A client's batch for one queue: every member admitted before anything is written, then one append. */
    CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        try {
            final StoreException refusal = batchFailure(messages);
            if (refusal != null) {
                return CompletableFuture.failedFuture(refusal);
            }
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final String name = messages.get(0).topic();
        final Optional<TopicConfig> topic = topicLookup.apply(name);
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

    /** Appends a batch to a topic known to exist (retention's copies of compacted topics come this way too). */
    CompletableFuture<List<SendResult>> appendBatch(final List<Message> messages, final TopicConfig topic) {
        final int queueId;
        try {
            queueId = queueFor(messages.get(0), topic);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final BatchRecords records;
        try {
            records = BatchRecords.encode(messages, config.storeHost());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        if (records.buffer().remaining() > config.segmentSize() - RecordLayout.BLANK_LENGTH) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.MESSAGE_TOO_LARGE, "a batch of "
                    + records.buffer().remaining() + " bytes does not fit one log segment"));
        }
        final long startNanos = System.nanoTime();
        final String topicName = topic.name();
        return appender.appendBatch(records.buffer(), records.starts(), topicName, queueId).thenApply(r -> {
            final long elapsed = System.nanoTime() - startNanos;
            final List<SendResult> results = new ArrayList<>(messages.size());
            for (int k = 0; k < messages.size(); k++) {
                config.observer().messageStored(topicName, records.length(k), elapsed);
                traffic.stored(1);
                results.add(new SendResult(records.uniqueIds()[k], topicName, queueId, r.queueOffset() + k,
                        r.physicalOffset() + records.starts()[k], config.storeHost()));
            }
            return results;
        });
    }

    /**
     * The queue a message goes to in a writable topic: the one it names, or for any queue, its message group's (so
     * a group stays in order) or the next in turn.
     *
     * @throws StoreException when the topic is not writable or has no such queue
     */
    private int queueFor(final Message message, final TopicConfig topic) {
        if (!topic.writable()) {
            throw new StoreException(StoreError.PERMISSION_DENIED, "topic " + topic.name() + " is not writable");
        }
        final int queueId = message.queueId();
        if (queueId == Message.ANY_QUEUE) {
            final String group = message.messageGroup();
            return group != null ? Math.floorMod(group.hashCode(), topic.queueCount())
                    : Math.floorMod(roundRobin.getAndIncrement(), topic.queueCount());
        }
        if (queueId < 0 || queueId >= topic.queueCount()) {
            throw new StoreException(StoreError.QUEUE_NOT_FOUND, "queue " + queueId + " of topic " + topic.name()
                    + " does not exist (it has " + topic.queueCount() + ")");
        }
        return queueId;
    }

    /**
     * Looks up (or auto-creates) the topic and appends; {@code deliverAt} other than NONE parks it as a timer. The
     * store's own features (due timers, committed half messages) send through here, past admission.
     */
    CompletableFuture<SendResult> routed(final Message message, final long deliverAt) {
        final Optional<TopicConfig> topic = topicLookup.apply(message.topic());
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
        if (!availability.running()) {
            return Availability.notRunning();
        }
        if (availability.diskFull()) {
            return new StoreException(StoreError.DISK_FULL, "disk usage is above " + config.diskFullRatio() * 100
                    + "%: sends are refused until space is freed");
        }
        if (!TopicNames.isValid(message.topic())) {
            return new StoreException(StoreError.ILLEGAL_ARGUMENT, "topic name '" + message.topic()
                    + "' is not valid");
        }
        if (TimerService.TOPIC.equals(message.topic()) || SystemNames.isTransactionTopic(message.topic())
                || QueueSealing.TOPIC.equals(message.topic())
                || SystemNames.SEALED_FORWARD_TOPIC.equals(message.topic())) {
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
        final int queueId;
        try {
            queueId = queueFor(original, topic);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
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
        if (special && appender.sealedEnd(topic.name(), queueId) >= 0) {
            // The log would take it (the timer or half topic), but it would land in a sealed queue later.
            return CompletableFuture.failedFuture(new StoreException(StoreError.QUEUE_SEALED, "queue " + queueId
                    + " of topic " + topic.name() + " is sealed: its writes have moved elsewhere"));
        }
        if (TransactionMessages.isHalf(message)) {
            // A delay a half message asks for is ignored.
            return transactions.get().prepare(message, topic.name(), queueId);
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
        final String topicName = topic.name();
        return appender.append(record, topicName, queueId).thenApply(r -> {
            config.observer().messageStored(topicName, r.size(), System.nanoTime() - startNanos);
            traffic.stored(1);
            return new SendResult(id, topicName, queueId, r.queueOffset(), r.physicalOffset(),
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
    CompletableFuture<SendResult> appendSystemRecord(final Message record) {
        return appendSystemRecord(record, false);
    }

    /**
     * As {@link #appendSystemRecord(Message)}, for a record whose loss in a crash costs only a repeat: completes once
     * written, before it is forced ({@link LogAppender#appendUnforced}).
     */
    CompletableFuture<SendResult> appendUnforcedSystemRecord(final Message record) {
        return appendSystemRecord(record, true);
    }

    private CompletableFuture<SendResult> appendSystemRecord(final Message record, final boolean unforced) {
        if (!availability.running()) {
            return Availability.refused();
        }
        final ByteBuffer encoded;
        try {
            encoded = RecordCodec.encode(record, config.storeHost());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        final String topic = record.topic();
        final int queueId = record.queueId();
        return (unforced ? appender.appendUnforced(encoded, topic, queueId) : appender.append(encoded, topic, queueId))
                .thenApply(r -> new SendResult(record.uniqueId(), topic, queueId, r.queueOffset(), r.physicalOffset(),
                        config.storeHost()));
    }
}
