package io.junction.broker.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Message rates for the console, from the counters in the metrics registry: sampled every {@link #PERIOD_MS} ms, the
 * last {@link #POINTS} samples of the per-protocol totals kept for the overview chart, the last two per-topic totals
 * for the topics' current rates. Sampling starts at the console's first request, so a broker nobody looks at pays
 * nothing; it runs on its own thread, never an event loop.
 *
 * <p>Sources: {@code rocketmq_messages_in_total} / {@code rocketmq_messages_out_total} (label {@code protocol}; only
 * with {@code metrics.enabled}), {@code junction.messages.in} / {@code junction.messages.out} (label {@code topic};
 * always) and the {@code junction.connections} gauges.
 */
final class TrafficHistory implements AutoCloseable {

    static final long PERIOD_MS = 2000;
    static final int POINTS = 150;

    private static final String PROTOCOL_IN = "rocketmq_messages_in_total";
    private static final String PROTOCOL_OUT = "rocketmq_messages_out_total";
    private static final String TOPIC_IN = "junction.messages.in";
    private static final String TOPIC_OUT = "junction.messages.out";
    private static final String CONNECTIONS = "junction.connections";

    private final MeterRegistry registry;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>(POINTS + 1);
    private Totals previousTopics;
    private Totals latestTopics;
    private ScheduledExecutorService sampler;
    private boolean closed;

    TrafficHistory(final MeterRegistry registry) {
        this.registry = registry;
    }

    /** Cumulative counts at one instant, by protocol (or by topic). */
    record Totals(long time, Map<String, Double> in, Map<String, Double> out) {
    }

    private record Sample(Totals protocols) {
    }

    /** Per-second rates between two samples, by label. */
    record Rates(Map<String, Double> in, Map<String, Double> out) {
        static final Rates NONE = new Rates(Map.of(), Map.of());
    }

    /** The chart: sample times and, per protocol, the in and out rates ending at each time (the first: 0). */
    record Series(List<Long> times, Map<String, List<Double>> in, Map<String, List<Double>> out) {
    }

    /** Starts sampling unless it runs already. */
    synchronized void start() {
        if (sampler != null || closed) {
            return;
        }
        sampler = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("junction-console-rates", true));
        sampler.scheduleAtFixedRate(() -> sample(System.currentTimeMillis()), 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    /** Takes one sample as of {@code now} (epoch ms); the sampler thread calls it, tests call it directly. */
    void sample(final long now) {
        final Totals protocols = new Totals(now, sum(PROTOCOL_IN, "protocol"), sum(PROTOCOL_OUT, "protocol"));
        final Totals topics = new Totals(now, sum(TOPIC_IN, "topic"), sum(TOPIC_OUT, "topic"));
        synchronized (this) {
            samples.addLast(new Sample(protocols));
            if (samples.size() > POINTS) {
                samples.removeFirst();
            }
            previousTopics = latestTopics;
            latestTopics = topics;
        }
    }

    private Map<String, Double> sum(final String name, final String label) {
        final Map<String, Double> totals = new HashMap<>();
        for (final Counter c : registry.find(name).counters()) {
            final String value = c.getId().getTag(label);
            if (value != null) {
                totals.merge(value, c.count(), Double::sum);
            }
        }
        return totals;
    }

    /** Open connections by protocol, now. */
    Map<String, Integer> connections() {
        final Map<String, Integer> open = new TreeMap<>();
        for (final Gauge g : registry.find(CONNECTIONS).gauges()) {
            final String protocol = g.getId().getTag("protocol");
            if (protocol != null) {
                open.merge(protocol, (int) g.value(), Integer::sum);
            }
        }
        return open;
    }

    /** Cumulative per-protocol counts as of now (not sampled: exact). */
    Totals protocolTotals() {
        return new Totals(System.currentTimeMillis(), sum(PROTOCOL_IN, "protocol"), sum(PROTOCOL_OUT, "protocol"));
    }

    /** Per-protocol rates over the last sampling period. */
    synchronized Rates protocolRates() {
        if (samples.size() < 2) {
            return Rates.NONE;
        }
        final Iterator<Sample> newestFirst = samples.descendingIterator();
        final Sample last = newestFirst.next();
        return rates(newestFirst.next().protocols(), last.protocols());
    }

    /** Per-topic rates over the last sampling period. */
    synchronized Rates topicRates() {
        return previousTopics == null ? Rates.NONE : rates(previousTopics, latestTopics);
    }

    synchronized Series series() {
        final List<Long> times = new ArrayList<>(samples.size());
        final Map<String, List<Double>> in = new TreeMap<>();
        final Map<String, List<Double>> out = new TreeMap<>();
        Totals before = null;
        for (final Sample s : samples) {
            times.add(s.protocols().time());
            final Rates r = before == null ? Rates.NONE : rates(before, s.protocols());
            append(in, r.in(), s.protocols().in().keySet(), times.size());
            append(out, r.out(), s.protocols().out().keySet(), times.size());
            before = s.protocols();
        }
        return new Series(times, in, out);
    }

    /** Adds one point to every protocol's series, a protocol seen first now getting zeros before. */
    private static void append(final Map<String, List<Double>> series, final Map<String, Double> rates,
                               final Iterable<String> protocols, final int length) {
        for (final String p : protocols) {
            series.computeIfAbsent(p, k -> new ArrayList<>());
        }
        for (final Map.Entry<String, List<Double>> e : series.entrySet()) {
            final List<Double> points = e.getValue();
            while (points.size() < length - 1) {
                points.add(0.0);
            }
            points.add(rates.getOrDefault(e.getKey(), 0.0));
        }
    }

    private static Rates rates(final Totals a, final Totals b) {
        final double seconds = Math.max(0.001, (b.time() - a.time()) / 1000.0);
        return new Rates(perSecond(a.in(), b.in(), seconds), perSecond(a.out(), b.out(), seconds));
    }

    private static Map<String, Double> perSecond(final Map<String, Double> a, final Map<String, Double> b,
                                                 final double seconds) {
        final Map<String, Double> r = new HashMap<>();
        b.forEach((k, v) -> r.put(k, Math.max(0, v - a.getOrDefault(k, 0.0)) / seconds));
        return r;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (sampler != null) {
            sampler.shutdownNow();
        }
    }
}
