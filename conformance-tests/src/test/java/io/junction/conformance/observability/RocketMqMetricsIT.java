package io.junction.conformance.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The RocketMQ-named metrics on {@code /metrics}: traffic sent and received over MQTT and over RocketMQ Remoting is
 * counted per protocol and topic under RocketMQ 5's names and labels, and the consumer gauges show the group.
 */
@WithBroker(settings = {"metrics.lag-interval-ms=200"})
class RocketMqMetricsIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @Test
    void shouldCountTrafficPerProtocolAndTopicUnderRocketMqNames(final RunningBroker broker) throws Exception {
        final Mqtt5BlockingClient sub = mqtt(broker, "metrics-sub");
        final Mqtt5BlockingClient pub = mqtt(broker, "metrics-pub");
        try (var publishes = sub.publishes(MqttGlobalPublishFilter.ALL)) {
            sub.subscribeWith().topicFilter("meters-mqtt/#").qos(MqttQos.AT_LEAST_ONCE).send();
            for (int i = 0; i < 3; i++) {
                pub.publishWith().topic("meters-mqtt/line").qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("m" + i).getBytes(StandardCharsets.UTF_8)).send();
            }
            for (int i = 0; i < 3; i++) {
                assertThat(publishes.receive(10, TimeUnit.SECONDS)).isPresent();
            }
        } finally {
            pub.disconnect();
            sub.disconnect();
        }

        final String nameServer = broker.nameServer();
        final DefaultMQProducer producer = new DefaultMQProducer("meters-producer");
        producer.setNamesrvAddr(nameServer);
        producer.setInstanceName("meters-producer");
        producer.start();
        try {
            for (int i = 0; i < 5; i++) {
                final Message m = new Message("meters-rmq", "t", ("r" + i).getBytes(StandardCharsets.UTF_8));
                assertThat(producer.send(m).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            }
        } finally {
            producer.shutdown();
        }
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("meters-group");
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName("meters-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("meters-rmq", "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (got.size() < 5 && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(5);

            try {
                awaitCounts(broker);
            } catch (final AssertionError | ConditionTimeoutException e) {
                throw new AssertionError(e.getMessage() + "\nbroker output:\n" + broker.process().output()
                        + "\nmetrics:\n" + broker.get("/metrics").body().lines()
                        .filter(l -> l.startsWith("rocketmq_")).toList(), e);
            }
        } finally {
            consumer.shutdown();
        }
        assertThat(broker.process().terminate(DEADLINE)).isZero();
    }

    private static void awaitCounts(final RunningBroker broker) {
        await().atMost(DEADLINE).untilAsserted(() -> {
            final String text = broker.get("/metrics").body();
            assertThat(value(text, "rocketmq_messages_in_total", "protocol", "mqtt", "topic", "meters-mqtt"))
                    .hasValue(3.0);
            assertThat(value(text, "rocketmq_messages_in_total", "protocol", "remoting", "topic",
                    "meters-rmq")).hasValue(5.0);
            assertThat(value(text, "rocketmq_messages_in_total", "protocol", "remoting", "topic",
                    "meters-mqtt")).isEmpty();
            assertThat(value(text, "rocketmq_throughput_in_total", "protocol", "remoting", "topic",
                    "meters-rmq")).hasValue(10.0);
            assertThat(value(text, "rocketmq_message_size_count", "protocol", "mqtt", "topic",
                    "meters-mqtt", "message_type", "Normal")).hasValue(3.0);
            assertThat(value(text, "rocketmq_messages_out_total", "protocol", "mqtt", "topic",
                    "meters-mqtt")).hasValue(3.0);
            assertThat(value(text, "rocketmq_messages_out_total", "protocol", "remoting", "topic",
                    "meters-rmq", "consumer_group", "meters-group")).hasValue(5.0);
            assertThat(value(text, "rocketmq_throughput_out_total", "protocol", "remoting", "topic",
                    "meters-rmq")).hasValue(10.0);
            assertThat(value(text, "rocketmq_rpc_latency_count", "protocol_type", "remoting",
                    "request_code", "send", "response_code", "success")).hasValue(5.0);
            assertThat(value(text, "rocketmq_consumer_lag_messages", "consumer_group", "meters-group",
                    "topic", "meters-rmq")).isPresent();
            assertThat(value(text, "rocketmq_consumer_connections", "consumer_group", "meters-group"))
                    .hasValue(1.0);
        });
    }

    private static OptionalDouble value(final String text, final String name, final String... labels) {
        final Map<String, String> wanted = new HashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            wanted.put(labels[i], labels[i + 1]);
        }
        return Scrapes.value(text, name, wanted);
    }

    static Mqtt5BlockingClient mqtt(final RunningBroker broker, final String id) {
        final Mqtt5BlockingClient c = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        c.connect();
        return c;
    }
}
