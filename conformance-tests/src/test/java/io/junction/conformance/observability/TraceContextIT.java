package io.junction.conformance.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message's W3C trace context crosses protocols as one canonical property, and with {@code otel.endpoint} set the
 * broker's send/store/deliver/ack spans of it arrive at the collector in the producer's trace.
 */
class TraceContextIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @TempDir
    Path tmp;

    @Test
    void shouldCarryAnMqttTraceparentToAmqpAndRocketMqConsumersAndExportTheBrokersSpans() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start();
             RunningBroker broker = RunningBroker.builder().dataDir(tmp.resolve("data"))
                     .set("otel.endpoint", receiver.endpoint())
                     .set("otel.traces-export-delay-ms", "200").start()) {
            final JmsConnectionFactory factory =
                    new JmsConnectionFactory(broker.amqpUri());
            try (Connection c = factory.createConnection()) {
                c.start();
                final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageConsumer consumer = session.createConsumer(session.createQueue("traced"));

                final Mqtt5BlockingClient pub = RocketMqMetricsIT.mqtt(broker, "traced-pub");
                pub.publishWith().topic("traced/sensor").qos(MqttQos.AT_LEAST_ONCE)
                        .payload("21.5".getBytes(StandardCharsets.UTF_8))
                        .userProperties().add("traceparent", TRACEPARENT).add("tracestate", "vendor=1")
                        .applyUserProperties().send();
                pub.disconnect();

                final Message got = consumer.receive(20_000);
                assertThat(got).isNotNull();
                assertThat(got.getStringProperty("traceparent")).isEqualTo(TRACEPARENT);
                assertThat(got.getStringProperty("tracestate")).isEqualTo("vendor=1");
            }
            assertThat(rocketMqTraceparents(broker, "traced")).containsExactly(TRACEPARENT);

            // The trace id travels as 16 raw bytes in the OTLP protobuf body.
            final String traceIdBytes = new String(HexFormat.of().parseHex(TRACE_ID), StandardCharsets.ISO_8859_1);
            await().atMost(DEADLINE).untilAsserted(() -> assertThat(receiver.received("/v1/traces"))
                    .contains(traceIdBytes)
                    .contains("send traced").contains("store traced").contains("deliver traced")
                    .contains("ack traced").contains("junction.protocol").contains("mqtt").contains("amqp"));
            assertThat(broker.process().terminate(DEADLINE)).isZero();
        }
    }

    @Test
    void shouldTurnTheCloudEventsTracingExtensionIntoTheCanonicalProperty() throws Exception {
        try (RunningBroker broker = RunningBroker.builder().dataDir(tmp.resolve("data")).start()) {
            final HttpResponse<String> posted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create(broker.httpBase() + "/topics/traced-ce"))
                    .header("ce-specversion", "1.0").header("ce-id", "e-1").header("ce-source", "/it")
                    .header("ce-type", "com.example.traced").header("ce-traceparent", TRACEPARENT)
                    .header("content-type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(posted.statusCode()).isBetween(200, 299);
            assertThat(rocketMqTraceparents(broker, "traced-ce")).containsExactly(TRACEPARENT);
            assertThat(broker.process().terminate(DEADLINE)).isZero();
        }
    }

    /** The traceparent properties of everything a RocketMQ consumer gets from the topic's start. */
    private static List<String> rocketMqTraceparents(final RunningBroker broker, final String topic)
            throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(topic + "-rmq");
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(topic + "-rmq");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            return got.stream().map(m -> m.getUserProperty("traceparent")).toList();
        } finally {
            consumer.shutdown();
        }
    }
}
