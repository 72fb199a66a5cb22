package io.junction.broker.metrics;

import io.junction.core.engine.StoreObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Turns store events into per-topic traffic counters and the append latency histogram:
 * {@code junction_messages_in_total}, {@code junction_bytes_in_total}, {@code junction_messages_out_total},
 * {@code junction_bytes_out_total} (each with a {@code topic} tag) and {@code junction_append_latency_seconds}.
 *
 * <p>Called on the store's threads for every message, so the meters of a topic are looked up once and cached; the
 * latency timer has no topic tag to keep the histogram's series count independent of the number of topics.
 */
public final class StoreMetrics implements StoreObserver {

    static final String MESSAGES_IN = "junction.messages.in";
    static final String BYTES_IN = "junction.bytes.in";
    static final String MESSAGES_OUT = "junction.messages.out";
    static final String BYTES_OUT = "junction.bytes.out";
    static final String APPEND_LATENCY = "junction.append.latency";

    /**
     * Histogram buckets: from page-cache appends (tens of microseconds, ASYNC) to slow fsyncs (SYNC on a busy disk).
     * Fixed buckets instead of micrometer's percentile histogram, which exports ~70 series for the same range.
     */
    private static final Duration[] LATENCY_BUCKETS = {
        Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
        Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5)};

    private final MeterRegistry registry;
    private final Timer appendLatency;
    private final ConcurrentMap<String, TopicMeters> topics = new ConcurrentHashMap<>();

    public StoreMetrics(final MeterRegistry registry) {
        this.registry = registry;
        this.appendLatency = Timer.builder(APPEND_LATENCY)
                .description("Time from a send entering the store to it being stored under the flush mode")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
    }

    @Override
    public void messageStored(final String topic, final int bytes, final long nanos) {
        final TopicMeters m = meters(topic);
        m.messagesIn.increment();
        m.bytesIn.increment(bytes);
        appendLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void messagesDelivered(final String topic, final int count, final long bytes) {
        final TopicMeters m = meters(topic);
        m.messagesOut.increment(count);
        m.bytesOut.increment(bytes);
    }

    /**
     * Registers a topic's counters at zero, so a topic shows up in {@code /metrics} before its first message (the
     * broker does this for the topics the store already has at start).
     */
    public void registerTopic(final String topic) {
        meters(topic);
    }

    private TopicMeters meters(final String topic) {
        final TopicMeters m = topics.get(topic);
        return m != null ? m : topics.computeIfAbsent(topic, this::newMeters);
    }

    private TopicMeters newMeters(final String topic) {
        return new TopicMeters(
                counter(MESSAGES_IN, "Messages stored", topic),
                counter(BYTES_IN, "Bytes of stored messages, as recorded in the commit log", topic),
                counter(MESSAGES_OUT, "Messages handed to consumers", topic),
                counter(BYTES_OUT, "Bytes of messages handed to consumers", topic));
    }

    private Counter counter(final String name, final String description, final String topic) {
        return Counter.builder(name).description(description).tag("topic", topic).register(registry);
    }

    private record TopicMeters(Counter messagesIn, Counter bytesIn, Counter messagesOut, Counter bytesOut) {
    }
}
