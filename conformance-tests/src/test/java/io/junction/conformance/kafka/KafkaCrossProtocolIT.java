package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Kafka producer's records reach RocketMQ (rocketmq-client 5.3, Remoting), MQTT (HiveMQ) and JMS (Qpid JMS)
 * consumers with their value, key and headers; messages those clients send reach a Kafka consumer with their body,
 * keys and properties as key and headers.
 */
@WithBroker(settings = {"kafka.topic-partitions=2"})
class KafkaCrossProtocolIT {
    private static RunningBroker broker;

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static ProducerRecord<String, String> record(final String topic, final String key, final String value) {
        final ProducerRecord<String, String> r = new ProducerRecord<>(topic, key, value);
        r.headers().add(new RecordHeader("region", "eu".getBytes(StandardCharsets.UTF_8)));
        return r;
    }

    private static void produce(final ProducerRecord<String, String> r) throws Exception {
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            producer.send(r).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldDeliverAKafkaRecordToARocketMqConsumer() throws Exception {
        produce(record("k2rocket", "order-1", "hello rocket"));
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("kafka-x-rocket");
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName("kafka-x-rocket");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("k2rocket", "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(1);
            final MessageExt m = got.get(0);
            assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("hello rocket");
            assertThat(m.getKeys()).isEqualTo("order-1");
            assertThat(m.getUserProperty("region")).isEqualTo("eu");
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldDeliverAKafkaRecordToAnMqttSubscriber() throws Exception {
        final Mqtt5BlockingClient mqtt = Mqtt5Client.builder().identifier("kafka-x-mqtt").serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        mqtt.connect();
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = mqtt.publishes(MqttGlobalPublishFilter.ALL)) {
            mqtt.subscribeWith().topicFilter("k2mqtt").qos(MqttQos.AT_LEAST_ONCE).send();
            produce(record("k2mqtt", "dev-1", "21.5"));
            final Optional<Mqtt5Publish> p = publishes.receive(30, TimeUnit.SECONDS);
            assertThat(p).isPresent();
            assertThat(p.get().getTopic().toString()).isEqualTo("k2mqtt");
            assertThat(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8)).isEqualTo("21.5");
            assertThat(p.get().getUserProperties().asList().stream().map(u -> u.getName() + "=" + u.getValue())
                    .toList()).contains("region=eu");
        } finally {
            mqtt.disconnect();
        }
    }

    @Test
    void shouldDeliverAKafkaRecordToAJmsConsumer() throws Exception {
        final JmsConnectionFactory factory = new JmsConnectionFactory(broker.amqpUri());
        try (Connection c = factory.createConnection()) {
            c.start();
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer consumer = session.createConsumer(session.createQueue("k2jms"));
            produce(record("k2jms", "cust-3", "to jms"));
            final jakarta.jms.Message m = consumer.receive(30_000);
            assertThat(m).isInstanceOf(BytesMessage.class);
            final byte[] body = new byte[(int) ((BytesMessage) m).getBodyLength()];
            ((BytesMessage) m).readBytes(body);
            assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("to jms");
            assertThat(m.getStringProperty("region")).isEqualTo("eu");
            // The record key is the message group: JMSXGroupID.
            assertThat(m.getStringProperty("JMSXGroupID")).isEqualTo("cust-3");
        }
    }

    @Test
    void shouldDeliverARocketMqMessageToAKafkaConsumer() throws Exception {
        final DefaultMQProducer producer = new DefaultMQProducer("kafka-x-rocket-producer");
        producer.setNamesrvAddr(broker.nameServer());
        producer.setInstanceName("kafka-x-rocket-producer");
        producer.setSendMsgTimeout(10_000);
        producer.start();
        try {
            final org.apache.rocketmq.common.message.Message m = new org.apache.rocketmq.common.message.Message(
                    "rocket2k", "TagA", "id-9", "from rocket".getBytes(StandardCharsets.UTF_8));
            m.putUserProperty("color", "red");
            assertThat(producer.send(m).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        } finally {
            producer.shutdown();
        }
        final ConsumerRecord<String, String> r = readOne("rocket2k");
        assertThat(r.key()).isEqualTo("id-9");
        assertThat(r.value()).isEqualTo("from rocket");
        assertThat(headers(r)).containsEntry("color", "red").doesNotContainKeys("TAGS", "KEYS", "UNIQ_KEY");
    }

    @Test
    void shouldDeliverAnMqttPublishToAKafkaConsumer() throws Exception {
        final Mqtt5BlockingClient mqtt = Mqtt5Client.builder().identifier("mqtt-x-kafka").serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        mqtt.connect();
        try {
            mqtt.publishWith().topic("m2k/sensor").qos(MqttQos.AT_LEAST_ONCE).payload("7".getBytes(StandardCharsets.UTF_8))
                    .userProperties().add("unit", "C").applyUserProperties().send();
        } finally {
            mqtt.disconnect();
        }
        final ConsumerRecord<String, String> r = readOne("m2k");
        assertThat(r.value()).isEqualTo("7");
        assertThat(headers(r)).containsEntry("unit", "C").containsEntry("mqtt.topic", "m2k/sensor");
    }

    @Test
    void shouldDeliverAJmsMessageToAKafkaConsumer() throws Exception {
        final JmsConnectionFactory factory = new JmsConnectionFactory(broker.amqpUri());
        try (Connection c = factory.createConnection()) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final TextMessage m = session.createTextMessage("from jms");
            m.setStringProperty("lane", "4");
            session.createProducer(session.createQueue("j2k")).send(m);
        }
        final ConsumerRecord<String, String> r = readOne("j2k");
        assertThat(r.value()).isEqualTo("from jms");
        assertThat(headers(r)).containsEntry("lane", "4");
    }

    /** Reads every partition of a topic another protocol created until one record is in. */
    private static ConsumerRecord<String, String> readOne(final String topic) {
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200))) {
            final List<TopicPartition> tps = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final List<ConsumerRecord<String, String>> got = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.isEmpty() && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(500)).forEach(got::add);
            }
            consumer.poll(Duration.ofMillis(300)).forEach(got::add);
            assertThat(got).hasSize(1);
            return got.get(0);
        }
    }

    private static Map<String, String> headers(final ConsumerRecord<String, String> r) {
        final Map<String, String> map = new HashMap<>();
        for (Header h : r.headers()) {
            map.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return map;
    }
}
