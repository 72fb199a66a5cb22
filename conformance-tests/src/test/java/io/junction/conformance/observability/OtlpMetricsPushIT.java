package io.junction.conformance.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With {@code otel.endpoint} set, the broker pushes its meters over OTLP/HTTP under RocketMQ's names. */
class OtlpMetricsPushIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @Test
    void shouldPushRocketMqNamedMetricsToTheConfiguredEndpoint() {
        try (OtlpReceiver receiver = OtlpReceiver.start();
             RunningBroker broker = RunningBroker.builder().dataDir(tmp.resolve("data"))
                     .set("otel.endpoint", receiver.endpoint())
                     .set("otel.metrics-interval-ms", "500")
                     .set("otel.service-name", "junction-otlp-it").start()) {
            final Mqtt5BlockingClient pub = RocketMqMetricsIT.mqtt(broker, "otlp-pub");
            pub.publishWith().topic("otlp-topic/x").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("hello".getBytes(StandardCharsets.UTF_8)).send();
            pub.disconnect();

            await().atMost(DEADLINE).untilAsserted(() -> assertThat(receiver.received("/v1/metrics"))
                    .contains("rocketmq_messages_in_total")
                    .contains("rocketmq_throughput_in_total")
                    .contains("rocketmq_message_size")
                    .contains("rocketmq_rpc_latency")
                    .contains("otlp-topic")
                    .contains("mqtt")
                    .contains("junction-otlp-it"));
            // Still scraped as before.
            assertThat(broker.get("/metrics").body()).contains("rocketmq_messages_in_total");
            assertThat(broker.process().terminate(DEADLINE)).isZero();
        }
    }
}
