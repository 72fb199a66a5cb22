package io.junction.conformance.kafka;

import io.junction.conformance.support.BrokerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

/** One broker jar for a test class, and kafka-clients producers and consumers for it. */
final class KafkaTestBroker implements AutoCloseable {
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private final BrokerProcess process;
    private final Path dataDir;

    private KafkaTestBroker(final BrokerProcess process, final Path dataDir) {
        this.process = process;
        this.dataDir = dataDir;
    }

    /** The broker's data directory (its self-signed TLS certificate is in {@code tls/}). */
    Path dataDir() {
        return dataDir;
    }

    /** A broker with extra {@code --set} settings. */
    static KafkaTestBroker start(final Map<String, String> settings) {
        try {
            return start(Files.createTempDirectory("junction-kafka-it").resolve("data"), settings);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A broker on {@code data} (seeded beforehand, with users for instance) with extra settings. */
    static KafkaTestBroker start(final Path data, final Map<String, String> settings) {
        final BrokerProcess.Builder b = BrokerProcess.builder(data);
        settings.forEach(b::set);
        final BrokerProcess process = b.start();
        try {
            process.awaitHealthy(DEADLINE);
        } catch (final RuntimeException | AssertionError e) {
            process.close();
            throw e;
        }
        return new KafkaTestBroker(process, data);
    }

    BrokerProcess process() {
        return process;
    }

    int port() {
        return Integer.parseInt(process.setting("kafka.port"));
    }

    String bootstrap() {
        return "127.0.0.1:" + port();
    }

    /** Producer settings: the client's defaults (idempotent, acks=all) plus {@code extra}. */
    Properties producerConfig(final Map<String, Object> extra) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        p.putAll(extra);
        return p;
    }

    KafkaProducer<String, String> stringProducer(final Map<String, Object> extra) {
        return new KafkaProducer<>(producerConfig(extra), new StringSerializer(), new StringSerializer());
    }

    KafkaProducer<byte[], byte[]> bytesProducer(final Map<String, Object> extra) {
        return new KafkaProducer<>(producerConfig(extra), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Consumer settings: reading from the earliest offset, plus {@code extra} (a group.id for groups). */
    Properties consumerConfig(final Map<String, Object> extra) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.putAll(extra);
        return p;
    }

    KafkaConsumer<String, String> stringConsumer(final Map<String, Object> extra) {
        return new KafkaConsumer<>(consumerConfig(extra), new StringDeserializer(), new StringDeserializer());
    }

    KafkaConsumer<byte[], byte[]> bytesConsumer(final Map<String, Object> extra) {
        return new KafkaConsumer<>(consumerConfig(extra), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void close() {
        process.close();
    }
}
