package io.junction.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class RocketMqMetersTest {

    @Test
    void storedMessagesAreCountedAndTheirSizesBucketedOnTheScrapedPage() throws Exception {
        try (BrokerMetrics metrics = BrokerMetrics.create()) {
            final RocketMqMeters meters = new RocketMqMeters(metrics, 2, 10);
            final RocketMqMeters.StoredMeters mqtt = meters.stored("mqtt");
            mqtt.stored("orders", MessageType.NORMAL, 100);
            mqtt.stored("orders", MessageType.NORMAL, 2000);
            mqtt.stored("orders", MessageType.FIFO, 5000);
            mqtt.stored("audit", MessageType.NORMAL, 10);
            mqtt.stored("third", MessageType.NORMAL, 7); // beyond two topics: counted as _other_
            mqtt.stored("fourth", MessageType.NORMAL, 8);
            meters.rpc("mqtt", "send", true, 2.5);
            meters.rpc("mqtt", "send", false, 0.2);

            final String page = metrics.scrape().get();

            assertThat(page).contains(
                    "rocketmq_messages_in_total{message_type=\"Normal\",protocol=\"mqtt\",topic=\"orders\"} 2",
                    "rocketmq_throughput_in_total{message_type=\"Normal\",protocol=\"mqtt\",topic=\"orders\"} 2100",
                    "rocketmq_message_size_bucket{message_type=\"Normal\",protocol=\"mqtt\",topic=\"orders\","
                            + "le=\"1024.0\"} 1",
                    "rocketmq_message_size_bucket{message_type=\"Normal\",protocol=\"mqtt\",topic=\"orders\","
                            + "le=\"4096.0\"} 2",
                    "rocketmq_message_size_count{message_type=\"Normal\",protocol=\"mqtt\",topic=\"orders\"} 2",
                    "rocketmq_message_size_sum{message_type=\"Normal\",protocol=\"mqtt\",topic=\"orders\"} 2100.0",
                    "rocketmq_message_size_count{message_type=\"Fifo\",protocol=\"mqtt\",topic=\"orders\"} 1",
                    "rocketmq_message_size_count{message_type=\"Normal\",protocol=\"mqtt\",topic=\"audit\"} 1",
                    "rocketmq_message_size_count{message_type=\"Normal\",protocol=\"mqtt\",topic=\"_other_\"} 2",
                    "rocketmq_rpc_latency_bucket{protocol_type=\"mqtt\",request_code=\"send\","
                            + "response_code=\"success\",le=\"3.0\"} 1",
                    "rocketmq_rpc_latency_count{protocol_type=\"mqtt\",request_code=\"send\","
                            + "response_code=\"error\"} 1");
            assertThat(page).doesNotContain("topic=\"third\"").doesNotContain("topic=\"fourth\"");
        }
    }

    @Test
    void pushedMetricsGetTheSameObservationsAsMicrometerSummaries() {
        final SimpleMeterRegistry pushed = new SimpleMeterRegistry();
        final BucketHistogram sizes = new BucketHistogram(
                new PrometheusRegistry(), pushed, "rocketmq_message_size",
                "sizes", new double[] {1024, 4096}, "protocol", "topic");
        final BucketHistogram.Series series = sizes.series("amqp", "orders");
        series.record(10);
        series.record(3000);

        final DistributionSummary summary = pushed.get("rocketmq_message_size").tag("protocol", "amqp")
                .tag("topic", "orders").summary();
        assertThat(summary.count()).isEqualTo(2);
        assertThat(summary.totalAmount()).isEqualTo(3010.0);
    }
}
