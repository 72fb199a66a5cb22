package io.junction.broker.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.registry.otlp.OtlpConfig;
import io.micrometer.registry.otlp.OtlpMeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.Map;

/**
 * Where and how often the meters are pushed over OTLP/HTTP (protobuf): to {@code <endpoint>/v1/metrics}, the path an
 * OpenTelemetry collector's OTLP/HTTP receiver listens on.
 *
 * @param endpoint    the collector's base URL, e.g. {@code http://collector:4318}
 * @param interval    time between pushes (each push carries the deltas and gauges of its interval)
 * @param serviceName the {@code service.name} resource attribute
 */
public record OtlpPush(String endpoint, Duration interval, String serviceName) {

    /** The metrics URL under {@link #endpoint}. */
    public String metricsUrl() {
        return endpoint.replaceAll("/+$", "") + "/v1/metrics";
    }

    /** The traces URL under {@link #endpoint}. */
    public String tracesUrl() {
        return endpoint.replaceAll("/+$", "") + "/v1/traces";
    }

    /** A registry pushing every meter added to it on a daemon thread of its own. */
    OtlpMeterRegistry registry() {
        final OtlpConfig config = new OtlpConfig() {
            @Override
            public String get(final String key) {
                return null; // every setting comes from the overrides below, none from the environment
            }

            @Override
            public String url() {
                return metricsUrl();
            }

            @Override
            public Duration step() {
                return interval;
            }

            @Override
            public Map<String, String> resourceAttributes() {
                return Map.of("service.name", serviceName);
            }
        };
        return new OtlpMeterRegistry(config, Clock.SYSTEM, new DefaultThreadFactory("junction-otlp-metrics", true));
    }
}
