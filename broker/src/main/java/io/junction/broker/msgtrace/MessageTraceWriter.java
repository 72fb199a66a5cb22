package io.junction.broker.msgtrace;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CompletableFuture;

/**
 * Writes RocketMQ trace records for the messages of topics with trace on (topic attribute {@code trace.enabled=true},
 * or named in {@code trace.topics};
 * records go to {@code RMQ_SYS_TRACE_TOPIC}, or the topic named by the attribute {@code trace.topic}), on every
 * protocol: the publish, each delivery to a consumer group, and each pop consumer's ack or dead-lettering. A record is
 * an ordinary message of the trace topic whose keys are the message id and the message's own keys, so RocketMQ's
 * tools find it as they find the records clients write ({@code queryMsgTraceById}: the trace topic by key).
 *
 * <p>Records are written through the core directly (not through a front-end's wrapper: trace records are neither
 * counted nor traced themselves), packed many to a trace message by a {@link TraceBatchWriter} as RocketMQ's clients
 * pack theirs; the traced message never waits for them, and a record that cannot be stored is counted and dropped.
 */
public final class MessageTraceWriter implements AutoCloseable {

    /** The topic attribute that turns trace on. */
    public static final String ENABLED_ATTRIBUTE = "trace.enabled";
    /** The topic attribute naming a custom trace topic. */
    public static final String TOPIC_ATTRIBUTE = "trace.topic";
    /** RocketMQ's default trace topic. */
    public static final String DEFAULT_TOPIC = "RMQ_SYS_TRACE_TOPIC";

    private final Messaging core;
    private final Set<String> configuredTopics;
    private final TraceBatchWriter batches;
    /**
     * A delivery's request id (what pairs its SubBefore and SubAfter): this start's random prefix and a counter, not a
     * random UUID per delivery (SecureRandom on the delivery path).
     */
    private final String requestIdPrefix = UUID.randomUUID().toString().replace("-", "") + '-';
    private final AtomicLong deliveries = new AtomicLong();

    /** @param configuredTopics topics traced whatever their attributes say ({@code trace.topics}) */
    public MessageTraceWriter(final Messaging core, final Set<String> configuredTopics,
                              final TraceBatchWriter.Settings batching) {
        this.core = core;
        this.configuredTopics = Set.copyOf(configuredTopics);
        this.batches = new TraceBatchWriter(core, batching);
    }

    /**
     * What the ack of a traced delivery needs to write its record.
     *
     * @param request the delivery's number, which makes its request id
     */
    public record Delivery(String traceTopic, long request, String msgId, String keys, long deliveredAt) {
    }

    /**
     * Creates {@code RMQ_SYS_TRACE_TOPIC} (one queue) unless it exists, as a RocketMQ broker does with its trace topic
     * on: RocketMQ clients with message trace on look its route up and write nothing while it has none.
     */
    public static CompletableFuture<TopicConfig> createTraceTopic(final Messaging core) {
        return core.topics().createIfAbsent(TopicConfig.of(DEFAULT_TOPIC, 1));
    }

    /** The trace topic of {@code topic} when its trace is on, else null (a map lookup: the route is in memory). */
    public String traceTopic(final String topic) {
        final Optional<TopicConfig> config = core.route(topic);
        if (config.isEmpty()) {
            return null;
        }
        final Map<String, String> attributes = config.get().attributes();
        if (!"true".equalsIgnoreCase(attributes.get(ENABLED_ATTRIBUTE)) && !configuredTopics.contains(topic)) {
            return null;
        }
        return attributes.getOrDefault(TOPIC_ATTRIBUTE, DEFAULT_TOPIC);
    }

    /**
     * What the publish record of a message of a traced topic needs from the message, read when it is sent (on the
     * sender's thread, while the message is in its cache: the send completes on the store's appender).
     */
    public record Publish(String traceTopic, String group, String topic, String tag, String keys, int bodyLength,
                          String uniqueId) {
    }

    /** A message of the traced {@code traceTopic} is being sent over {@code protocol}. */
    public Publish publishing(final String traceTopic, final String protocol, final Message m) {
        final String producerGroup = m.property(MessageProperties.PRODUCER_GROUP);
        return new Publish(traceTopic, producerGroup != null ? producerGroup : protocol, m.topic(), m.tag(), m.keys(),
                m.body().length, m.uniqueId());
    }

    /** The message was stored ({@code result}) or refused ({@code result} null). */
    public void published(final Publish p, final SendResult result, final long costMs, final int msgType) {
        final String msgId = result != null ? result.uniqueId() : p.uniqueId();
        if (msgId == null) {
            return; // a refused message without an id of its own: nothing a query could find it by
        }
        // Formatted on the writer's thread: this one completes sends (the store's appender) or serves connections.
        final long now = System.currentTimeMillis();
        batches.offer(p.traceTopic(), out -> TraceRecords.pub(out, now, p.group(), p.topic(), msgId, p.tag(),
                p.keys(), result != null ? host(result.storeHost()) : "", p.bodyLength(), costMs, msgType,
                result != null ? result.offsetMessageId() : null, result != null), msgId, p.keys());
    }

    /** A stored message of a traced topic was handed to a consumer of {@code group}; returns what its ack needs. */
    public Delivery delivered(final String traceTopic, final String group, final StoredMessage m,
                              final int reconsumeTimes) {
        final String msgId = m.properties().get(MessageProperties.UNIQUE_ID);
        if (msgId == null) {
            return null;
        }
        final String keys = m.properties().get(MessageProperties.KEYS);
        final long request = deliveries.incrementAndGet();
        final long now = System.currentTimeMillis();
        batches.offer(traceTopic, out -> TraceRecords.subBefore(out, now, group, requestId(request), msgId,
                reconsumeTimes, keys), msgId, keys);
        return new Delivery(traceTopic, request, msgId, keys, now);
    }

    /** The consumer acked ({@code consumed}) or dead-lettered a traced delivery. */
    public void settled(final Delivery d, final boolean consumed) {
        final long now = System.currentTimeMillis();
        batches.offer(d.traceTopic(), out -> TraceRecords.subAfter(out, requestId(d.request()), d.msgId(),
                now - d.deliveredAt(), consumed, d.keys(), consumed ? TraceRecords.CONSUMED : TraceRecords.FAILED,
                now), d.msgId(), d.keys());
    }

    /** Records that could not be stored since the start (queue full, or their trace message refused). */
    public long dropped() {
        return batches.dropped();
    }

    /** Records stored since the start. */
    public long stored() {
        return batches.stored();
    }

    /** Stops writing after what is queued is written. */
    @Override
    public void close() {
        batches.close();
    }

    /** The request id pairing a delivery's SubBefore and SubAfter records. */
    private String requestId(final long request) {
        return requestIdPrefix + Long.toHexString(request);
    }

    private static String host(final InetSocketAddress address) {
        return address.getHostString() + ':' + address.getPort();
    }
}
