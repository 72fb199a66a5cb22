package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MQTT mapping seen from RocketMQ Remoting clients through the core: a Remoting producer's message to topic T
 * reaches MQTT subscribers of {@code T/#}; an MQTT publish to {@code T/x} reaches a Remoting consumer of T with the
 * full MQTT topic and the user properties as message properties.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class CrossProtocolIT {
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
    void shouldDeliverARemotingMessageToMqttSubscribersOfTheTopic() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "x-sub");
        final DefaultMQProducer producer = new DefaultMQProducer("x-producer-group");
        producer.setNamesrvAddr(nameServer());
        producer.setInstanceName("x-producer");
        producer.setSendMsgTimeout(5000);
        producer.start();
        try (var in = Clients.publishes(sub)) {
            sub.subscribeWith().topicFilter("factory/#").qos(MqttQos.AT_LEAST_ONCE).send();
            final Message m = new Message("factory", "press", "k1", bytes("from rocketmq"));
            m.putUserProperty("line", "7");
            assertThat(producer.send(m).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            final Mqtt5Publish p = Clients.receive(in, 1).get(0);
            assertThat(p.getTopic().toString()).isEqualTo("factory");
            assertThat(Clients.text(p)).isEqualTo("from rocketmq");
            assertThat(p.getUserProperties().asList().stream().map(u -> u.getName() + "=" + u.getValue()).toList())
                    .contains("line=7");
        } finally {
            producer.shutdown();
            sub.disconnect();
        }
    }

    @Test
    void shouldDeliverAnMqttPublishToARemotingConsumer() throws Exception {
        final Mqtt5BlockingClient pub = Clients.v5(broker, "x-pub");
        pub.publishWith().topic("plant/hall/3").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("from mqtt"))
                .userProperties().add("shift", "night").applyUserProperties().send();
        pub.disconnect();
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("x-consumer-group");
        consumer.setNamesrvAddr(nameServer());
        consumer.setInstanceName("x-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("plant", "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + 20_000_000_000L;
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(1);
            final MessageExt m = got.get(0);
            assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("from mqtt");
            assertThat(m.getUserProperty("mqtt.topic")).isEqualTo("plant/hall/3");
            assertThat(m.getUserProperty("shift")).isEqualTo("night");
        } finally {
            consumer.shutdown();
        }
    }
}
