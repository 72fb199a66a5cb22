package io.junction.broker.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The traffic meters under the names RocketMQ 5 publishes (so dashboards made for RocketMQ work), with RocketMQ's
 * label names ({@code topic}, {@code consumer_group}, {@code message_type}, ...) plus {@code protocol}. One instance
 * serves every front-end; meters are looked up once per label set and cached, and topics and groups are capped by
 * {@link BoundedLabels}.
 *
 * <p>Names are registered exactly as RocketMQ's OpenTelemetry instruments are named, so the same name arrives over
 * OTLP and, rendered by the Prometheus registry, on {@code /metrics}.
 */
public final class RocketMqMeters {

    static final String MESSAGES_IN = "rocketmq_messages_in_total";
    static final String MESSAGES_OUT = "rocketmq_messages_out_total";
    static final String THROUGHPUT_IN = "rocketmq_throughput_in_total";
    static final String THROUGHPUT_OUT = "rocketmq_throughput_out_total";
    static final String MESSAGE_SIZE = "rocketmq_message_size";
    static final String SEND_TO_DLQ = "rocketmq_send_to_dlq_messages_total";
    static final String COMMIT = "rocketmq_commit_messages_total";
    static final String ROLLBACK = "rocketmq_rollback_messages_total";
    static final String RPC_LATENCY = "rocketmq_rpc_latency";

    static final String TOPIC = "topic";
    static final String GROUP = "consumer_group";
    static final String PROTOCOL = "protocol";
    static final String MESSAGE_TYPE = "message_type";

    /** RocketMQ's message size buckets, in bytes. */
    private static final double[] SIZE_BUCKETS = {1024, 4096, 512 * 1024, 1024 * 1024, 2 * 1024 * 1024,
        4 * 1024 * 1024};
    /** RocketMQ's RPC latency buckets, in milliseconds. */
    private static final double[] LATENCY_BUCKETS = {1, 3, 5, 10, 100, 1000, 3000};

    private final MeterRegistry registry;
    private final BoundedLabels topics;
    private final BoundedLabels groups;
    private final BucketHistogram sizes;
    private final BucketHistogram latencies;
    // Keyed by the plain label values: a lookup builds no Micrometer Tags (sorted, deduplicated, hashed anew each
    // time), only a record of strings whose hashes the strings keep.
    private final ConcurrentMap<InKey, InMeters> in = new ConcurrentHashMap<>();
    private final ConcurrentMap<OutKey, OutMeters> out = new ConcurrentHashMap<>();
    private final ConcurrentMap<Tags, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentMap<RpcKey, BucketHistogram.Series> rpcs = new ConcurrentHashMap<>();

    /**
     * @param maxTopics distinct topic label values kept, beyond them {@link BoundedLabels#OTHER}
     * @param maxGroups distinct consumer group label values kept
     */
    public RocketMqMeters(final BrokerMetrics metrics, final int maxTopics, final int maxGroups) {
        this.registry = metrics.registry();
        this.topics = new BoundedLabels(maxTopics);
        this.groups = new BoundedLabels(maxGroups);
        this.sizes = new BucketHistogram(metrics.scrapedRegistry(), metrics.pushRegistry(), MESSAGE_SIZE,
                "Body bytes of stored messages", SIZE_BUCKETS, PROTOCOL, TOPIC, MESSAGE_TYPE);
        this.latencies = new BucketHistogram(metrics.scrapedRegistry(), metrics.pushRegistry(), RPC_LATENCY,
                "Milliseconds from a front-end's call into the message core to its answer", LATENCY_BUCKETS,
                "protocol_type", "request_code", "response_code");
    }

    String topic(final String topic) {
        return topics.label(topic);
    }

    String group(final String group) {
        return groups.label(group);
    }

    /** The meters of messages stored through one front-end, found with one lookup per message. */
    StoredMeters stored(final String protocol) {
        return new StoredMeters(protocol);
    }

    /** {@code count} messages of {@code bytes} body bytes were handed to a consumer of the group. */
    void messagesOut(final String protocol, final String topic, final String group, final int count,
                     final long bytes) {
        final OutMeters m = cached(out, new OutKey(protocol, topic(topic), group(group)), this::newOut);
        m.messages.increment(count);
        m.throughput.increment(bytes);
    }

    void sentToDlq(final String protocol, final String topic, final String group) {
        counter(SEND_TO_DLQ, "Messages a consumer group moved to its dead-letter topic",
                Tags.of(PROTOCOL, protocol, TOPIC, topic(topic), GROUP, group(group))).increment();
    }

    void transactionEnded(final String protocol, final String topic, final boolean commit) {
        counter(commit ? COMMIT : ROLLBACK, commit ? "Half messages committed" : "Half messages rolled back",
                Tags.of(PROTOCOL, protocol, TOPIC, topic(topic))).increment();
    }

    /** One call of the message core answered after {@code millis}; {@code code} names the call. */
    void rpc(final String protocol, final String code, final boolean success, final double millis) {
        cached(rpcs, new RpcKey(protocol, code, success),
                k -> latencies.series(k.protocol, k.code, k.success ? "success" : "error")).record(millis);
    }

    private Counter counter(final String name, final String description, final Tags tags) {
        return cached(counters, tags.and("name", name),
                t -> Counter.builder(name).description(description).tags(tags).register(registry));
    }

    private static <K, V> V cached(final ConcurrentMap<K, V> cache, final K key, final Function<K, V> make) {
        final V v = cache.get(key);
        return v != null ? v : cache.computeIfAbsent(key, make);
    }

    private InMeters newIn(final InKey key) {
        final Tags tags = Tags.of(PROTOCOL, key.protocol, TOPIC, key.topic, MESSAGE_TYPE, key.messageType);
        return new InMeters(
                Counter.builder(MESSAGES_IN).description("Messages stored").tags(tags).register(registry),
                Counter.builder(THROUGHPUT_IN).description("Body bytes of stored messages").tags(tags)
                        .register(registry),
                sizes.series(key.protocol, key.topic, key.messageType));
    }

    private OutMeters newOut(final OutKey key) {
        final Tags tags = Tags.of(PROTOCOL, key.protocol, TOPIC, key.topic, GROUP, key.group);
        return new OutMeters(
                Counter.builder(MESSAGES_OUT).description("Messages handed to consumers").tags(tags)
                        .register(registry),
                Counter.builder(THROUGHPUT_OUT).description("Body bytes of messages handed to consumers").tags(tags)
                        .register(registry));
    }

    private record InKey(String protocol, String topic, String messageType) {
    }

    private record OutKey(String protocol, String topic, String group) {
    }

    private record RpcKey(String protocol, String code, boolean success) {
    }

    private record InMeters(Counter messages, Counter throughput, BucketHistogram.Series size) {
        void record(final int bytes) {
            messages.increment();
            throughput.increment(bytes);
            size.record(bytes);
        }
    }

    private record OutMeters(Counter messages, Counter throughput) {
    }

    /**
     * {@code rocketmq_messages_in_total}, {@code rocketmq_throughput_in_total} and {@code rocketmq_message_size} of
     * one front-end. Keyed by the topic as sent: a stored message costs one map lookup (the topic's hash, which a
     * fresh topic string computes once) instead of capping its label and building and hashing a key. Only topics
     * admitted as label values are kept here, so the map is bounded by {@code maxTopics}; the rest take the long way.
     */
    final class StoredMeters {
        private final String protocol;
        private final ConcurrentMap<String, InMeters[]> byTopic = new ConcurrentHashMap<>();

        private StoredMeters(final String protocol) {
            this.protocol = protocol;
        }

        /** A message of {@code bytes} body bytes was stored. */
        void stored(final String topic, final MessageType type, final int bytes) {
            InMeters[] byType = byTopic.get(topic);
            if (byType == null) {
                final String label = topic(topic);
                if (!label.equals(topic)) {
                    cached(in, new InKey(protocol, label, type.label), RocketMqMeters.this::newIn).record(bytes);
                    return;
                }
                byType = byTopic.computeIfAbsent(topic, t -> new InMeters[MessageType.values().length]);
            }
            InMeters m = byType[type.ordinal()];
            if (m == null) {
                // A race fills the slot twice with the same cached meters.
                m = cached(in, new InKey(protocol, topic, type.label), RocketMqMeters.this::newIn);
                byType[type.ordinal()] = m;
            }
            m.record(bytes);
        }
    }
}
