package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The AMQP mapping seen from other protocols through the core: a JMS TextMessage reaches a RocketMQ Remoting consumer
 * and an MQTT subscriber as its UTF-8 bytes with the JMS properties as message / user properties; a Remoting message
 * reaches a JMS consumer as a BytesMessage (a TextMessage when its content type says text), with its properties and
 * tag as JMS properties and its unique id as JMSMessageID.
 */
@WithBroker
class AmqpCrossProtocolIT {
    private static RunningBroker broker;

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static String nameServer() {
        return broker.nameServer();
    }

    @Test
    void shouldDeliverAJmsMessageToARemotingConsumer() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = session.createProducer(session.createQueue("jms2rocket"));
            final TextMessage m = session.createTextMessage("from jms");
            m.setStringProperty("region", "eu");
            m.setIntProperty("qty", 12);
            producer.send(m);
        }
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("amqp-x-consumer");
        consumer.setNamesrvAddr(nameServer());
        consumer.setInstanceName("amqp-x-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("jms2rocket", "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(1);
            final MessageExt m = got.get(0);
            assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("from jms");
            assertThat(m.getUserProperty("region")).isEqualTo("eu");
            assertThat(m.getUserProperty("qty")).isEqualTo("12");
            assertThat(m.getMsgId()).startsWith("ID:"); // the JMSMessageID is the core's unique id
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldDeliverAJmsMessageToAnMqttSubscriber() throws Exception {
        final Mqtt5BlockingClient mqtt = Mqtt5Client.builder().identifier("amqp-x-mqtt").serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        mqtt.connect();
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = mqtt.publishes(
                com.hivemq.client.mqtt.MqttGlobalPublishFilter.ALL)) {
            mqtt.subscribeWith().topicFilter("sensors/#").qos(MqttQos.AT_LEAST_ONCE).send();
            try (Connection c = Jms.connect(broker)) {
                final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final TextMessage m = session.createTextMessage("21.5");
                m.setStringProperty("unit", "C");
                session.createProducer(session.createTopic("sensors")).send(m);
            }
            final Optional<Mqtt5Publish> p = publishes.receive(20, TimeUnit.SECONDS);
            assertThat(p).isPresent();
            assertThat(p.get().getTopic().toString()).isEqualTo("sensors");
            assertThat(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8)).isEqualTo("21.5");
            assertThat(p.get().getUserProperties().asList().stream().map(u -> u.getName() + "=" + u.getValue())
                    .toList()).contains("unit=C");
        } finally {
            mqtt.disconnect();
        }
    }

    @Test
    void shouldDeliverARemotingMessageToAJmsConsumer() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer consumer = session.createConsumer(session.createQueue("rocket2jms"));
            final DefaultMQProducer producer = new DefaultMQProducer("amqp-x-producer");
            producer.setNamesrvAddr(nameServer());
            producer.setInstanceName("amqp-x-producer");
            producer.setSendMsgTimeout(5000);
            producer.start();
            final String id;
            try {
                final org.apache.rocketmq.common.message.Message bytes =
                        new org.apache.rocketmq.common.message.Message("rocket2jms", "TagA", new byte[] {1, 2, 3});
                bytes.putUserProperty("line", "7");
                final var sent = producer.send(bytes);
                assertThat(sent.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                id = sent.getMsgId();
                final org.apache.rocketmq.common.message.Message text =
                        new org.apache.rocketmq.common.message.Message("rocket2jms", "hello".getBytes(StandardCharsets.UTF_8));
                text.putUserProperty("CONTENT_TYPE", "text/plain; charset=utf-8");
                assertThat(producer.send(text).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            } finally {
                producer.shutdown();
            }
            final List<Message> got = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                final Message m = consumer.receive(20_000);
                assertThat(m).isNotNull();
                got.add(m);
            }
            final Message first = got.stream().filter(m -> m instanceof BytesMessage).findFirst().orElseThrow();
            final byte[] body = new byte[(int) ((BytesMessage) first).getBodyLength()];
            ((BytesMessage) first).readBytes(body);
            assertThat(body).containsExactly(1, 2, 3);
            assertThat(first.getStringProperty("line")).isEqualTo("7");
            assertThat(first.getStringProperty("TAGS")).isEqualTo("TagA");
            // Qpid JMS marks an AMQP string id without the JMS "ID:" prefix as such (AMQP JMS mapping)
            assertThat(first.getJMSMessageID()).isEqualTo("ID:AMQP_NO_PREFIX:" + id);
            final Message second = got.stream().filter(m -> m instanceof TextMessage).findFirst().orElseThrow();
            assertThat(((TextMessage) second).getText()).isEqualTo("hello");
        }
    }
}
