package io.junction.broker.metrics;

import io.junction.core.Messaging;
import io.junction.core.group.QueueLag;
import io.junction.core.meta.GroupConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer gauges that need store queries: {@code rocketmq_consumer_lag_messages},
 * {@code rocketmq_consumer_lag_latency}, {@code rocketmq_consumer_inflight_messages},
 * {@code rocketmq_consumer_ready_messages} and {@code rocketmq_consumer_connections}, per consumer group and topic.
 *
 * <p>A scrape must not wait on the store, so the figures are computed every interval on the metrics thread and the
 * gauges show the last computed rows. At most {@code maxSeries} (group, topic) pairs are computed per run, in the
 * order the store lists groups, so a broker with very many groups costs a bounded time and series count.
 */
final class ConsumerLagSampler implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerLagSampler.class);

    static final String LAG_MESSAGES = "rocketmq_consumer_lag_messages";
    static final String LAG_LATENCY = "rocketmq_consumer_lag_latency";
    static final String INFLIGHT = "rocketmq_consumer_inflight_messages";
    static final String READY = "rocketmq_consumer_ready_messages";
    static final String CONSUMER_CONNECTIONS = "rocketmq_consumer_connections";

    /** A store query slower than this is skipped for this run (the gauge keeps no row for it). */
    private static final long QUERY_TIMEOUT_MS = 5_000;

    private final Messaging core;
    private final RocketMqMeters meters;
    private final InflightTracker inflight;
    private final ConsumedTopics consumed;
    private final int maxSeries;
    private final MultiGauge lagMessages;
    private final MultiGauge lagLatency;
    private final MultiGauge inflightMessages;
    private final MultiGauge readyMessages;
    private final MultiGauge consumerConnections;
    private final Map<Tags, AtomicLong> lagHolders = new HashMap<>();
    private final Map<Tags, AtomicLong> latencyHolders = new HashMap<>();
    private final Map<Tags, AtomicLong> inflightHolders = new HashMap<>();
    private final Map<Tags, AtomicLong> readyHolders = new HashMap<>();
    private final Map<Tags, AtomicLong> connectionHolders = new HashMap<>();

    ConsumerLagSampler(final MeterRegistry registry, final Messaging core, final RocketMqMeters meters,
                       final InflightTracker inflight, final ConsumedTopics consumed, final int maxSeries) {
        this.consumed = consumed;
        this.core = core;
        this.meters = meters;
        this.inflight = inflight;
        this.maxSeries = maxSeries;
        this.lagMessages = MultiGauge.builder(LAG_MESSAGES)
                .description("Messages of the topic the group has not consumed yet").register(registry);
        this.lagLatency = MultiGauge.builder(LAG_LATENCY)
                .description("Milliseconds since the group's oldest unconsumed message was stored (an upper bound: "
                        + "since the last consumed one was stored)").register(registry);
        this.inflightMessages = MultiGauge.builder(INFLIGHT)
                .description("Messages received by the group's consumers and not yet acknowledged").register(registry);
        this.readyMessages = MultiGauge.builder(READY)
                .description("Messages ready for the group: not consumed and not in flight").register(registry);
        this.consumerConnections = MultiGauge.builder(CONSUMER_CONNECTIONS)
                .description("Consumer clients of the group registered by heartbeat (RocketMQ Remoting and gRPC)")
                .register(registry);
    }

    @Override
    public void run() {
        try {
            sample();
        } catch (final RuntimeException | LinkageError e) { // a scheduled task that throws is never run again
            LOG.warn("Consumer gauges not computed this time: {}", e.toString());
        }
    }

    void sample() {
        final long now = System.currentTimeMillis();
        inflight.sweep(System.nanoTime());
        final Map<InflightTracker.GroupTopic, Long> flying = inflight.snapshot();
        final Rows lag = new Rows(lagHolders);
        final Rows latency = new Rows(latencyHolders);
        final Rows inFlight = new Rows(inflightHolders);
        final Rows ready = new Rows(readyHolders);
        final Rows connections = new Rows(connectionHolders);
        final Map<InflightTracker.GroupTopic, Long> unlisted = new HashMap<>(flying);
        final Set<InflightTracker.GroupTopic> pairs = new LinkedHashSet<>(consumed.pairs());
        final Set<String> groups = new LinkedHashSet<>();
        pairs.forEach(p -> groups.add(p.group()));
        for (final GroupConfig group : core.groups().list()) {
            groups.add(group.name());
            if (pairs.size() < maxSeries) {
                core.consumers().committedTopics(group.name())
                        .forEach(t -> pairs.add(new InflightTracker.GroupTopic(group.name(), t)));
            }
        }
        for (final String name : groups) {
            final int clients = core.consumers().clients(name).size();
            if (clients > 0) {
                connections.add(Tags.of(RocketMqMeters.GROUP, meters.group(name)), clients);
            }
        }
        // Pairs beyond the label caps share the _other_ labels: their figures add up in one row.
        final Map<InflightTracker.GroupTopic, long[]> figures = new LinkedHashMap<>();
        int series = 0;
        for (final InflightTracker.GroupTopic pair : pairs) {
            if (series++ >= maxSeries) {
                break;
            }
            final List<QueueLag> queues = lagOf(pair.group(), pair.topic());
            if (queues == null) {
                continue;
            }
            long messages = 0;
            long oldestConsumed = Long.MAX_VALUE;
            for (final QueueLag q : queues) {
                messages += Math.max(0, q.lag());
                if (q.lag() > 0 && q.lastConsumedTime() > 0) {
                    oldestConsumed = Math.min(oldestConsumed, q.lastConsumedTime());
                }
            }
            final long latencyMs = messages > 0 && oldestConsumed != Long.MAX_VALUE ? Math.max(0, now - oldestConsumed)
                    : 0;
            final long[] f = figures.computeIfAbsent(new InflightTracker.GroupTopic(meters.group(pair.group()),
                    meters.topic(pair.topic())), k -> new long[2]);
            f[0] += messages;
            f[1] = Math.max(f[1], latencyMs);
        }
        figures.forEach((key, f) -> {
            final long held = flying.getOrDefault(key, 0L);
            unlisted.remove(key);
            final Tags tags = Tags.of(RocketMqMeters.GROUP, key.group(), RocketMqMeters.TOPIC, key.topic());
            lag.add(tags, f[0]);
            latency.add(tags, f[1]);
            inFlight.add(tags, held);
            ready.add(tags, Math.max(0, f[0] - held));
        });
        unlisted.forEach((k, held) -> inFlight.add(
                Tags.of(RocketMqMeters.GROUP, k.group(), RocketMqMeters.TOPIC, k.topic()), held));
        lag.registerTo(lagMessages);
        latency.registerTo(lagLatency);
        inFlight.registerTo(inflightMessages);
        ready.registerTo(readyMessages);
        connections.registerTo(consumerConnections);
    }

    /**
     * One gauge's rows of this run. A series that stays keeps its gauge and value holder (only the value changes): a
     * MultiGauge that replaced it instead would, for a moment, have the old and the new gauge of the same labels, and a
     * scrape just then fails on duplicate labels. Series gone from this run are removed.
     */
    private static final class Rows {
        private final Map<Tags, AtomicLong> holders;
        private final Map<Tags, AtomicLong> current = new LinkedHashMap<>();

        Rows(final Map<Tags, AtomicLong> holders) {
            this.holders = holders;
        }

        void add(final Tags tags, final long value) {
            final AtomicLong holder = holders.computeIfAbsent(tags, t -> new AtomicLong());
            holder.set(value);
            current.put(tags, holder);
        }

        void registerTo(final MultiGauge gauge) {
            holders.keySet().retainAll(current.keySet());
            final List<MultiGauge.Row<?>> rows = new ArrayList<>(current.size());
            current.forEach((tags, holder) -> rows.add(MultiGauge.Row.of(tags, holder, AtomicLong::get)));
            gauge.register(rows, false);
        }
    }

    private List<QueueLag> lagOf(final String group, final String topic) {
        try {
            return core.consumers().lag(group, topic).get(QUERY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (final ExecutionException | TimeoutException e) {
            return null;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
