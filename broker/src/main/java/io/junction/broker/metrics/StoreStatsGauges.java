package io.junction.broker.metrics;

import io.junction.core.engine.StoreStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Gauges of the store's size and positions, from {@code MessageStore.stats()}. One scrape reads seven gauges; the
 * snapshot is taken once and reused for a second so a scrape costs one {@code stats()} call, not seven.
 */
public final class StoreStatsGauges {

    private static final long REUSE_NANOS = 1_000_000_000L;

    private final Supplier<StoreStats> source;
    private StoreStats last;
    private long lastNanos;

    private StoreStatsGauges(final Supplier<StoreStats> source) {
        this.source = source;
    }

    /** Registers the store gauges, reading {@code source} at scrape time. */
    public static void register(final MeterRegistry registry, final Supplier<StoreStats> source) {
        final StoreStatsGauges g = new StoreStatsGauges(source);
        g.gauge(registry, "junction.store.disk.used", "bytes", "Bytes of all store files", StoreStats::diskUsedBytes);
        g.gauge(registry, "junction.store.disk.free", "bytes", "Free bytes on the data directory's file system",
                StoreStats::diskFreeBytes);
        g.gauge(registry, "junction.store.log.min.offset", null, "First readable commit-log offset",
                StoreStats::logMinOffset);
        g.gauge(registry, "junction.store.log.write.offset", null, "End of the written commit log",
                StoreStats::logWriteOffset);
        g.gauge(registry, "junction.store.log.flushed.offset", null, "End of the forced commit log",
                StoreStats::logFlushedOffset);
        g.gauge(registry, "junction.store.topics", null, "Topics known to the store", StoreStats::topicCount);
        g.gauge(registry, "junction.store.recovered.from.crash", null,
                "1 when the last start found the store not cleanly shut down", s -> s.recoveredFromCrash() ? 1 : 0);
        g.gauge(registry, "junction.store.damaged.records", null,
                "Records found damaged on disk (failing their CRC) since the start; skipped, never served",
                StoreStats::damagedRecords);
    }

    private void gauge(final MeterRegistry registry, final String name, final String unit, final String description,
                       final ToDoubleFunction<StoreStats> value) {
        Gauge.builder(name, this, g -> g.read(value))
                .baseUnit(unit)
                .description(description)
                .strongReference(true)
                .register(registry);
    }

    private synchronized double read(final ToDoubleFunction<StoreStats> value) {
        final long now = System.nanoTime();
        if (last == null || now - lastNanos > REUSE_NANOS) {
            try {
                last = source.get();
                lastNanos = now;
            } catch (final RuntimeException e) {
                return Double.NaN; // the store is closing or failed; the scrape still answers
            }
        }
        return value.applyAsDouble(last);
    }
}
