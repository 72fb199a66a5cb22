package io.junction.broker.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.registry.otlp.OtlpMeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The Prometheus registry (and, when configured, the OTLP push registry) with the JVM basics bound, and the thread
 * scrapes run on. A scrape reads every gauge
 * (including the store's disk usage), so it runs off the event loops.
 */
public final class BrokerMetrics implements AutoCloseable {

    /** Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Scrapes waiting beyond this are refused: a scraper that queues more is misbehaving. */
    private static final int MAX_QUEUED_SCRAPES = 4;

    private final PrometheusMeterRegistry prometheus;
    private final MeterRegistry registry;
    private final OtlpMeterRegistry otlp;
    private final JvmGcMetrics gcMetrics;
    private final ExecutorService scrapeExecutor;
    private final StoreMetrics storeMetrics;

    private BrokerMetrics(final OtlpPush push) {
        prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        if (push == null) {
            otlp = null;
            registry = prometheus;
        } else {
            // Every meter goes to both: scraped from the Prometheus registry, pushed from the OTLP one.
            otlp = push.registry();
            registry = new CompositeMeterRegistry(Clock.SYSTEM, List.of(prometheus, otlp));
        }
        storeMetrics = new StoreMetrics(registry);
        gcMetrics = new JvmGcMetrics();
        scrapeExecutor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(MAX_QUEUED_SCRAPES), new DefaultThreadFactory("junction-metrics", true));
        // The JVM binders cost ~100 ms of class loading and MXBean lookups; bind them off the start path. They run on
        // the scrape thread, so the first scrape, queued behind them, already sees them.
        scrapeExecutor.execute(this::bindJvmMetrics);
    }

    private void bindJvmMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
    }

    public static BrokerMetrics create() {
        return new BrokerMetrics(null);
    }

    /** Metrics scraped at {@code /metrics} and, when {@code push} is not null, pushed over OTLP as well. */
    public static BrokerMetrics create(final OtlpPush push) {
        return new BrokerMetrics(push);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus client's registry behind {@code /metrics}, for meters registered with it directly. */
    PrometheusRegistry scrapedRegistry() {
        return prometheus.getPrometheusRegistry();
    }

    /** The OTLP push registry, or null when nothing is pushed. */
    MeterRegistry pushRegistry() {
        return otlp;
    }

    /** The store observer feeding the traffic counters and append latency. */
    public StoreMetrics storeMetrics() {
        return storeMetrics;
    }

    /**
     * Renders every meter in the Prometheus text format on the metrics thread. Completes exceptionally with a
     * {@link java.util.concurrent.RejectedExecutionException} when too many scrapes are queued or after close.
     */
    public CompletableFuture<String> scrape() {
        try {
            return CompletableFuture.supplyAsync(prometheus::scrape, scrapeExecutor);
        } catch (final RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        scrapeExecutor.shutdownNow();
        try {
            scrapeExecutor.awaitTermination(5, TimeUnit.SECONDS); // binding may still run; close the GC listener after
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        gcMetrics.close();
        if (otlp != null) {
            otlp.close(); // pushes what the last interval counted
        }
        registry.close();
        prometheus.close();
    }
}
