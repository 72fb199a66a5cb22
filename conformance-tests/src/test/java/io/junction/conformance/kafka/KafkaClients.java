package io.junction.conformance.kafka;

import io.junction.conformance.support.RunningBroker;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** kafka-clients producers and consumers for a broker's Kafka listener. */
final class KafkaClients {
    private KafkaClients() {
    }

    /** Producer settings: the client's defaults (idempotent, acks=all) plus {@code extra}. */
    static Properties producerConfig(final RunningBroker broker, final Map<String, Object> extra) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        p.putAll(extra);
        return p;
    }

    static KafkaProducer<String, String> stringProducer(final RunningBroker broker, final Map<String, Object> extra) {
        return new KafkaProducer<>(producerConfig(broker, extra), new StringSerializer(), new StringSerializer());
    }

    static KafkaProducer<byte[], byte[]> bytesProducer(final RunningBroker broker, final Map<String, Object> extra) {
        return new KafkaProducer<>(producerConfig(broker, extra), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Consumer settings: reading from the earliest offset, plus {@code extra} (a group.id for groups). */
    static Properties consumerConfig(final RunningBroker broker, final Map<String, Object> extra) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.putAll(extra);
        return p;
    }

    static KafkaConsumer<String, String> stringConsumer(final RunningBroker broker, final Map<String, Object> extra) {
        return new KafkaConsumer<>(consumerConfig(broker, extra), new StringDeserializer(), new StringDeserializer());
    }

    static KafkaConsumer<byte[], byte[]> bytesConsumer(final RunningBroker broker, final Map<String, Object> extra) {
        return new KafkaConsumer<>(consumerConfig(broker, extra), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }
}
