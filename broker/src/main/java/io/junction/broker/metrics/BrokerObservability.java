package io.junction.broker.metrics;

import io.junction.broker.msgtrace.MessageTraceWriter;
import io.junction.broker.msgtrace.TraceBatchWriter;
import io.junction.broker.tracing.MessageSpans;
import io.junction.core.Messaging;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * RocketMQ-named metrics, and spans when configured, for every front-end: wraps the message core once per front-end
 * ({@link #observe}), and computes the consumer gauges on a thread of its own every {@code lagIntervalMs}.
 */
public final class BrokerObservability implements AutoCloseable {

    /** Popped messages followed for the in-flight gauge at most (about 100 bytes each). */
    private static final int MAX_TRACKED_INFLIGHT = 100_000;
    /** Open half messages remembered for their topic at most. */
    private static final int MAX_OPEN_HALVES = 100_000;

    private final MeterRegistry registry;
    private final RocketMqMeters meters;
    private final InflightTracker inflight = new InflightTracker(MAX_TRACKED_INFLIGHT);
    private final HalfMessages halves;
    private final ConsumedTopics consumed;
    private final ScheduledExecutorService sampler;
    private final MessageSpans spans;
    private final MessageTraceWriter traces;
    private final boolean enabled;

    /** Limits and the sampling interval of the RocketMQ-named meters. */
    public record Settings(boolean enabled, int maxTopics, int maxGroups, int maxLagSeries, int lagIntervalMs,
                           Set<String> traceTopics) {
    }

    /**
     * @param spans where the spans of messages go, or null to record none (then the wrapper does no span work)
     */
    public BrokerObservability(final BrokerMetrics metrics, final Messaging core, final Settings settings,
                               final MessageSpans spans) {
        this.registry = metrics.registry();
        this.spans = spans;
        this.traces = new MessageTraceWriter(core, settings.traceTopics(), TraceBatchWriter.Settings.DEFAULT);
        this.enabled = settings.enabled();
        FunctionCounter.builder("junction.trace.records.stored", traces, MessageTraceWriter::stored)
                .description("message-trace records the broker stored").register(registry);
        FunctionCounter.builder("junction.trace.records.dropped", traces, MessageTraceWriter::dropped)
                .description("message-trace records the broker dropped (queue full or trace message refused)")
                .register(registry);
        this.meters = new RocketMqMeters(metrics, settings.maxTopics(), settings.maxGroups());
        this.halves = new HalfMessages(registry, MAX_OPEN_HALVES);
        this.consumed = new ConsumedTopics(settings.maxLagSeries());
        this.sampler = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("junction-metrics-consumers", true));
        final ConsumerLagSampler lag = new ConsumerLagSampler(registry, core, meters, inflight, consumed,
                settings.maxLagSeries());
        sampler.scheduleWithFixedDelay(lag, settings.lagIntervalMs(), settings.lagIntervalMs(),
                TimeUnit.MILLISECONDS);
    }

    /** The core as the front-end of {@code protocol} should see it: its traffic counted under that label. */
    public Messaging observe(final Messaging core, final String protocol) {
        if (!enabled) {
            return core;
        }
        return new ObservedMessaging(core, protocol, meters, inflight, halves, consumed, spans, traces);
    }

    public MeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        traces.close();
    }
}
