package io.junction.broker.metrics;

import io.junction.broker.msgtrace.MessageTraceWriter;
import io.junction.broker.tracing.MessageSpans;
import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.RecallHandle;
import io.junction.core.Receipt;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import io.junction.spi.TraceContextProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The message core as one front-end sees it, with its traffic counted under RocketMQ's metric names and the
 * front-end's protocol as a label. Every call goes to the core unchanged; what the answers say is recorded on the
 * thread that completes them (cheap counter updates only). Waiting reads ({@link #pull}, {@link #pop}) keep their
 * cancellation: cancelling what this returns cancels the core's wait.
 *
 * <p>Storage stays unaware of metrics and protocols: the broker wraps the facade per front-end instead.
 */
public final class ObservedMessaging implements Messaging {

    private static final String UNKNOWN = "unknown";

    private final Messaging core;
    private final String protocol;
    private final RocketMqMeters meters;
    private final RocketMqMeters.StoredMeters stored;
    private final InflightTracker inflight;
    private final HalfMessages halves;
    private final ConsumedTopics consumed;
    /** Null when spans are not recorded: then no span work at all, one null check per call. */
    private final MessageSpans spans;
    private final MessageTraceWriter traces;

    ObservedMessaging(final Messaging core, final String protocol, final RocketMqMeters meters,
                      final InflightTracker inflight, final HalfMessages halves, final ConsumedTopics consumed,
                      final MessageSpans spans, final MessageTraceWriter traces) {
        this.consumed = consumed;
        this.traces = traces;
        this.spans = spans;
        this.core = core;
        this.protocol = protocol;
        this.meters = meters;
        this.stored = meters.stored(protocol);
        this.inflight = inflight;
        this.halves = halves;
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        final long start = System.nanoTime();
        final String traceTopic = traces.traceTopic(message.topic());
        final MessageTraceWriter.Publish publish = traceTopic == null ? null
                : traces.publishing(traceTopic, protocol, message);
        // Worked out here, on the sender's thread where the message is fresh in its core's cache, not when the send
        // completes: that runs on the store's single appender, where reading the message's properties again cost a
        // fifth of the appender's time (cache misses) in an MQTT fan-in profile.
        final MessageType type = MessageType.of(message);
        if (spans != null) {
            final MessageSpans.SendSpans traced = spans.sendStarted(message, protocol);
            final CompletableFuture<SendResult> sent = core.send(traced.message());
            sent.whenComplete((r, e) -> {
                spans.sendEnded(traced, r, e);
                sendEnded(message, type, publish, start, r, e);
            });
            return sent;
        }
        final CompletableFuture<SendResult> sent = core.send(message);
        sent.whenComplete((r, e) -> sendEnded(message, type, publish, start, r, e));
        return sent;
    }

    private void sendEnded(final Message message, final MessageType type, final MessageTraceWriter.Publish publish,
                           final long start, final SendResult result, final Throwable failure) {
        rpc("send", start, failure);
        if (failure == null) {
            stored(message, type);
        }
        if (publish != null) {
            traces.published(publish, result, (System.nanoTime() - start) / 1_000_000, type.traceType);
        }
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        final long start = System.nanoTime();
        final CompletableFuture<List<SendResult>> sent = core.sendBatch(messages);
        sent.whenComplete((r, e) -> {
            rpc("send_batch", start, e);
            if (e == null) {
                messages.forEach(m -> stored(m, MessageType.of(m)));
            }
        });
        return sent;
    }

    private void stored(final Message m, final MessageType type) {
        stored.stored(m.topic(), type, m.body().length);
        if (type == MessageType.TRANSACTION) {
            halves.sent(m.uniqueId(), meters.topic(m.topic()), protocol);
        }
    }

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        consumed.consumed(request.group(), request.topic());
        final CompletableFuture<PullResult> pulled = core.pull(request);
        pulled.whenComplete((r, e) -> {
            if (r != null && !r.messages().isEmpty()) {
                delivered(request.topic(), request.group(), r.messages());
            }
        });
        return pulled;
    }

    /** As {@link #pull}: what was delivered is counted (and traced) while the messages are lent, before the reader. */
    @Override
    public <R> CompletableFuture<R> pullLent(final PullRequest request, final Function<PullResult, R> reader,
                                             final Consumer<? super R> dropped) {
        consumed.consumed(request.group(), request.topic());
        return core.pullLent(request, r -> {
            if (!r.messages().isEmpty()) {
                delivered(request.topic(), request.group(), r.messages());
            }
            return reader.apply(r);
        }, dropped);
    }

    private void delivered(final String topic, final String group, final List<StoredMessage> messages) {
        final String traceTopic = traces.traceTopic(topic);
        long bytes = 0;
        for (final StoredMessage m : messages) {
            bytes += m.body().remaining();
            if (spans != null) {
                spans.delivered(protocol, group, topic, m.properties());
            }
            if (traceTopic != null) {
                traces.delivered(traceTopic, group, m, m.reconsumeTimes());
            }
        }
        meters.messagesOut(protocol, topic, group, messages.size(), bytes);
    }

    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        consumed.consumed(request.group(), request.topic());
        final CompletableFuture<PopResult> popped = core.pop(request);
        final CompletableFuture<PopResult> observed = new CompletableFuture<>();
        popped.whenComplete((r, e) -> {
            if (e != null) {
                observed.completeExceptionally(e);
            } else if (observed.isCancelled()) {
                r.giveBack(core, request.group());
            } else {
                final PopResult followed = followed(request, r);
                if (!observed.complete(followed)) {
                    // Cancelled while being followed: through this wrapper, so that what followed() began settles.
                    followed.giveBack(this, request.group());
                }
            }
        });
        observed.whenComplete((r, e) -> {
            if (observed.isCancelled()) {
                popped.cancel(false);
            }
        });
        return observed;
    }

    private PopResult followed(final PopRequest request, final PopResult result) {
        if (result.messages().isEmpty()) {
            return result;
        }
        final String group = meters.group(request.group());
        final List<PoppedMessage> out = new ArrayList<>(result.messages().size());
        String topic = null;
        long bytes = 0;
        int count = 0;
        for (final PoppedMessage m : result.messages()) {
            if (topic != null && !topic.equals(m.topic())) {
                meters.messagesOut(protocol, topic, group, count, bytes);
                bytes = 0;
                count = 0;
            }
            topic = m.topic();
            bytes += m.message().body().remaining();
            count++;
            final Map<String, String> props = m.message().properties();
            final String traceTopic = traces.traceTopic(m.topic());
            final MessageTraceWriter.Delivery delivery = traceTopic == null ? null
                    : traces.delivered(traceTopic, request.group(), m.message(), m.reconsumeTimes());
            final Receipt receipt;
            if (spans != null) {
                spans.delivered(protocol, request.group(), m.topic(), props);
                receipt = inflight.popped(group, meters.topic(m.topic()), m.receipt(), request.invisibleMillis(),
                        props.get(TraceContextProperties.TRACEPARENT), props.get(TraceContextProperties.TRACESTATE),
                        delivery);
            } else {
                receipt = inflight.popped(group, meters.topic(m.topic()), m.receipt(), request.invisibleMillis(),
                        null, null, delivery);
            }
            out.add(receipt == m.receipt() ? m : new PoppedMessage(m.message(), m.topic(), receipt,
                    m.reconsumeTimes()));
        }
        meters.messagesOut(protocol, topic, group, count, bytes);
        return new PopResult(out);
    }

    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return core.browse(request);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        final long start = System.nanoTime();
        acked(group, inflight.settle(receiptHandle));
        final CompletableFuture<Void> acked = core.ack(group, receiptHandle);
        acked.whenComplete((r, e) -> rpc("ack", start, e));
        return acked;
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        final long start = System.nanoTime();
        receiptHandles.forEach(h -> acked(group, inflight.settle(h)));
        final CompletableFuture<Void> acked = core.ack(group, receiptHandles);
        acked.whenComplete((r, e) -> rpc("ack", start, e));
        return acked;
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        final long start = System.nanoTime();
        receipts.forEach(r -> acked(group, inflight.settle(r)));
        final List<Receipt> unwrapped = new ArrayList<>(receipts.size());
        receipts.forEach(r -> unwrapped.add(InflightTracker.unwrap(r)));
        final CompletableFuture<Void> acked = core.ackReceipts(group, unwrapped);
        acked.whenComplete((r, e) -> rpc("ack", start, e));
        return acked;
    }

    /** The ack span of a settled message (its trace context was kept when it was popped). */
    private void acked(final String group, final InflightTracker.Settled settled) {
        if (settled == null) {
            return;
        }
        if (spans != null && settled.traceparent() != null) {
            spans.acked(protocol, group, settled.topic(), settled.traceparent(), settled.tracestate());
        }
        if (settled.delivery() != null) {
            traces.settled(settled.delivery(), true);
        }
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        // The message stays with its consumer under a new handle the core makes; it is counted until its deadline
        // under the old one, and no longer followed after that.
        return core.changeInvisibleTime(group, receiptHandle, invisibleMillis);
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        inflight.settle(receiptHandle);
        return core.nack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        inflight.settle(receiptHandle);
        return core.giveBack(group, receiptHandle);
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        final InflightTracker.Settled followed = inflight.settle(receiptHandle);
        final CompletableFuture<Void> moved = core.deadLetter(group, receiptHandle);
        moved.whenComplete((r, e) -> {
            if (e == null) {
                meters.sentToDlq(protocol, followed != null ? followed.topic() : UNKNOWN, group);
                if (followed != null && followed.delivery() != null) {
                    traces.settled(followed.delivery(), false);
                }
            }
        });
        return moved;
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        return core.recall(handle);
    }

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        final long start = System.nanoTime();
        final CompletableFuture<Void> ended = core.endTransaction(end);
        ended.whenComplete((r, e) -> {
            rpc("end_transaction", start, e);
            if (e == null && end.resolution() != TransactionResolution.UNKNOWN) {
                final String topic = halves.ended(end.messageId());
                meters.transactionEnded(protocol, topic != null ? topic : UNKNOWN,
                        end.resolution() == TransactionResolution.COMMIT);
            }
        });
        return ended;
    }

    private void rpc(final String code, final long startNanos, final Throwable failure) {
        meters.rpc(protocol, code, failure == null, (System.nanoTime() - startNanos) / 1e6);
    }

    @Override
    public void addTransactionChecker(final TransactionChecker checker) {
        core.addTransactionChecker(checker);
    }

    @Override
    public void removeTransactionChecker(final TransactionChecker checker) {
        core.removeTransactionChecker(checker);
    }

    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        consumed.consumed(group, topic);
        core.commitOffset(group, topic, queueId, offset);
    }

    @Override
    public long queryOffset(final String group, final String topic, final int queueId) {
        return core.queryOffset(group, topic, queueId);
    }

    @Override
    public long minOffset(final String topic, final int queueId) {
        return core.minOffset(topic, queueId);
    }

    @Override
    public long maxOffset(final String topic, final int queueId) {
        return core.maxOffset(topic, queueId);
    }

    @Override
    public Duration retention() {
        return core.retention();
    }

    @Override
    public CompletableFuture<Long> searchOffset(final String topic, final int queueId, final long timestamp) {
        return core.searchOffset(topic, queueId, timestamp);
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        return core.earliestStoreTime(topic, queueId);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return core.lookup(commitLogOffset);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return core.queryById(topic, messageId);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return core.queryByKey(topic, key, max, beginTimestamp, endTimestamp);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return core.queryByTime(topic, beginTimestamp, endTimestamp, max);
    }

    @Override
    public Optional<TopicConfig> route(final String topic) {
        return core.route(topic);
    }

    @Override
    public TopicAdmin topics() {
        return core.topics();
    }

    @Override
    public GroupAdmin groups() {
        return core.groups();
    }

    @Override
    public Consumers consumers() {
        return core.consumers();
    }

    @Override
    public Statistics statistics() {
        return core.statistics();
    }

    @Override
    public KvConfigs kvConfigs() {
        return core.kvConfigs();
    }
}
