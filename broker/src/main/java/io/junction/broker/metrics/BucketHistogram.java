package io.junction.broker.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * A labelled histogram with fixed buckets, observed once per message. It is registered with the Prometheus registry
 * behind {@code /metrics} directly rather than as a Micrometer summary: a summary keeps a time-window maximum and a
 * time-window histogram that both check the clock and rotate on every observation, which made it about four times as
 * costly per message as this (classic buckets only, no exemplars) and the largest part of what counting traffic cost.
 * When metrics are also pushed over OTLP, every observation goes to a Micrometer summary of the push registry as well.
 */
final class BucketHistogram {

    private final Histogram scraped;
    private final MeterRegistry pushed;
    private final String name;
    private final String description;
    private final double[] buckets;
    private final String[] labelNames;

    /**
     * @param pushed the OTLP push registry, or null when nothing is pushed
     */
    BucketHistogram(final PrometheusRegistry scrapedRegistry, final MeterRegistry pushed, final String name,
                    final String description, final double[] buckets, final String... labelNames) {
        this.scraped = Histogram.builder().name(name).help(description).labelNames(labelNames)
                .classicUpperBounds(buckets).classicOnly().withoutExemplars().register(scrapedRegistry);
        this.pushed = pushed;
        this.name = name;
        this.description = description;
        this.buckets = buckets.clone();
        this.labelNames = labelNames.clone();
    }

    /** The series of one set of label values (in the order of the label names); look it up once and keep it. */
    Series series(final String... labelValues) {
        DistributionSummary summary = null;
        if (pushed != null) {
            final DistributionSummary.Builder b = DistributionSummary.builder(name).description(description)
                    .serviceLevelObjectives(buckets);
            for (int i = 0; i < labelNames.length; i++) {
                b.tag(labelNames[i], labelValues[i]);
            }
            summary = b.register(pushed);
        }
        return new Series(scraped.labelValues(labelValues), summary);
    }

    /** One labelled series. */
    record Series(DistributionDataPoint scraped, DistributionSummary pushed) {
        void record(final double value) {
            scraped.observe(value);
            if (pushed != null) {
                pushed.record(value);
            }
        }
    }
}
