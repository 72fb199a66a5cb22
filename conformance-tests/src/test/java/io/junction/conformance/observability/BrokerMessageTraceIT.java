package io.junction.conformance.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.client.trace.TraceView;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;

/**
 * The broker writes RocketMQ trace records itself for a topic with {@code trace.enabled=true}, whatever the
 * protocols: MQTT publishes, their deliveries to a JMS queue consumer and a RocketMQ pull consumer, and the JMS
 * consumer's acks are found by RocketMQ's trace query (the trace topic by message id) and decoded by the RocketMQ
 * client's own decoder and trace view, although the broker packs many messages' records into one trace message.
 */
@WithBroker
class BrokerMessageTraceIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final int MESSAGES = 20;

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @Test
    void shouldTraceAnMqttMessageDeliveredToAJmsConsumerInRocketMqsFormat(final RunningBroker broker)
            throws Exception {
        final String address = broker.nameServer();
        final DefaultMQAdminExt admin = RocketMqAdmin.started(address);
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
                for (int i = 0; i < MESSAGES; i++) {
                    pub.publishWith().topic("bt-orders/eu").qos(MqttQos.AT_LEAST_ONCE)
                            .payload(("paid-" + i).getBytes(StandardCharsets.UTF_8)).send();
                }
                pub.disconnect();
                for (int i = 0; i < MESSAGES; i++) {
                    assertThat(consumer.receive(20_000)).as("JMS message %d", i).isNotNull();
                }
            }
            final List<String> msgIds = messageIds(address, "bt-orders");

            // The broker packs the records of many messages into one trace message: each id still finds its own
            // events, decoded by the RocketMQ client's decoder and by the view RocketMQ's trace query tool prints.
            for (final String msgId : List.of(msgIds.get(0), msgIds.get(MESSAGES / 2), msgIds.get(MESSAGES - 1))) {
                await().atMost(DEADLINE).untilAsserted(() -> {
                    final List<MessageExt> records = admin.queryMessage(TopicValidator.RMQ_SYS_TRACE_TOPIC, msgId,
                            64, 0, Long.MAX_VALUE).getMessageList();
                    final List<TraceContext> traces = new ArrayList<>();
                    final List<TraceView> views = new ArrayList<>();
                    for (final MessageExt record : records) {
                        TraceDataEncoder.decoderFromTraceDataString(new String(record.getBody(),
                                StandardCharsets.UTF_8)).stream()
                                .filter(t -> msgId.equals(t.getTraceBeans().get(0).getMsgId()))
                                .forEach(traces::add);
                        views.addAll(TraceView.decodeFromTraceTransData(msgId, record));
                    }
                    assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.Pub).singleElement()
                            .satisfies(t -> {
                                assertThat(t.getGroupName()).isEqualTo("mqtt");
                                assertThat(t.isSuccess()).isTrue();
                                assertThat(t.getTraceBeans().get(0).getTopic()).isEqualTo("bt-orders");
                                assertThat(t.getTraceBeans().get(0).getBodyLength())
                                        .isEqualTo(("paid-" + msgIds.indexOf(msgId)).length());
                            });
                    assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.SubBefore)
                            .extracting(TraceContext::getGroupName).contains("bt-rmq");
                    assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.SubBefore).hasSize(2);
                    assertThat(traces).filteredOn(t -> t.getTraceType() == TraceType.SubAfter).singleElement()
                            .satisfies(t -> assertThat(t.isSuccess()).isTrue());
                    assertThat(views).extracting(TraceView::getMsgType)
                            .containsExactlyInAnyOrder("Pub", "SubBefore", "SubBefore", "SubAfter");
                    assertThat(views).extracting(TraceView::getMsgId).containsOnly(msgId);
                });
            }
        } finally {
            admin.shutdown();
        }
        assertThat(broker.process().terminate(DEADLINE)).isZero();
    }

    /** The ids of the messages a RocketMQ consumer (group bt-rmq) gets from the topic, in the order published. */
    private static List<String> messageIds(final String nameServer, final String topic) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("bt-rmq");
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName("bt-rmq");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (got.size() < MESSAGES && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(MESSAGES);
            got.sort(Comparator.comparing(m -> Integer.parseInt(new String(m.getBody(), StandardCharsets.UTF_8)
                    .substring("paid-".length()))));
            return got.stream().map(MessageExt::getMsgId).toList();
        } finally {
            consumer.shutdown();
        }
    }
}
