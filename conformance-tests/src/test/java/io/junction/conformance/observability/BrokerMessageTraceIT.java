package io.junction.conformance.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.trace.TraceBean;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;

/**
 * The broker writes RocketMQ trace records itself for a topic with {@code trace.enabled=true}, whatever the
 * protocols: an MQTT publish, its delivery to a JMS queue consumer and that consumer's ack are found by RocketMQ's
 * trace query (the trace topic by message id) and decoded by the RocketMQ client's own decoder.
 */
@WithBroker
class BrokerMessageTraceIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    static {
        System.setProperty("rocketmq.client.logRoot", System.getProperty("java.io.tmpdir") + "/rocketmq-client-logs");
        System.setProperty("rocketmq.client.logLevel", "WARN");
    }

    @Test
    void shouldTraceAnMqttMessageDeliveredToAJmsConsumerInRocketMqsFormat(final RunningBroker broker)
            throws Exception {
        final String address = broker.nameServer();
        final DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(address);
        admin.setInstanceName("bt-admin");
        admin.start();
        try {
            final TopicConfig topic = new TopicConfig("bt-orders", 4, 4, 6);
            topic.setAttributes(Map.of("+trace.enabled", "true"));
            admin.createAndUpdateTopicConfig(address, topic);

            final JmsConnectionFactory factory =
                    new JmsConnectionFactory(broker.amqpUri());
            try (Connection c = factory.createConnection()) {
                c.start();
                final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageConsumer consumer = session.createConsumer(session.createQueue("bt-orders"));
                final Mqtt5BlockingClient pub = RocketMqMetricsIT.mqtt(broker, "bt-pub");
                pub.publishWith().topic("bt-orders/eu").qos(MqttQos.AT_LEAST_ONCE)
                        .payload("paid".getBytes(StandardCharsets.UTF_8)).send();
                pub.disconnect();
                assertThat(consumer.receive(20_000)).isNotNull();
            }
            final String msgId = firstMessageId(address, "bt-orders");

            await().atMost(DEADLINE).untilAsserted(() -> {
                final List<TraceContext> traces = new ArrayList<>();
                for (final MessageExt record : admin.queryMessage(TopicValidator.RMQ_SYS_TRACE_TOPIC, msgId, 64,
                        0, Long.MAX_VALUE).getMessageList()) {
                    traces.addAll(TraceDataEncoder.decoderFromTraceDataString(
                            new String(record.getBody(), StandardCharsets.UTF_8)));
                }
                assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.Pub).singleElement()
                        .satisfies(t -> {
                            assertThat(t.getGroupName()).isEqualTo("mqtt");
                            assertThat(t.isSuccess()).isTrue();
                            assertThat(t.getTraceBeans().get(0).getTopic()).isEqualTo("bt-orders");
                            assertThat(t.getTraceBeans().get(0).getBodyLength()).isEqualTo(4);
                        });
                assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.SubBefore)
                        .extracting(TraceContext::getGroupName).contains("bt-rmq");
                assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.SubBefore).hasSize(2);
                assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.SubAfter).singleElement()
                        .satisfies(t -> assertThat(t.isSuccess()).isTrue());
                assertThat(traces).flatExtracting(TraceContext::getTraceBeans).extracting(TraceBean::getMsgId)
                        .containsOnly(msgId);
            });
        } finally {
            admin.shutdown();
        }
        assertThat(broker.process().terminate(DEADLINE)).isZero();
    }

    /** The id of the first message a RocketMQ consumer (group bt-rmq) gets from the topic. */
    private static String firstMessageId(final String nameServer, final String topic) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("bt-rmq");
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName("bt-rmq");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(1);
            return got.get(0).getMsgId();
        } finally {
            consumer.shutdown();
        }
    }
}
