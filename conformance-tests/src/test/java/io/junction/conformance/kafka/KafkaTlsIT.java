package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.FreePorts;
import io.junction.conformance.support.RunningBroker;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/**
 * Kafka inside TLS on {@code kafka.tls-port}, clients trusting the broker's self-signed certificate; and a secured
 * broker (security.enabled) refusing Kafka clients, which cannot authenticate yet.
 */
class KafkaTlsIT {

    @Test
    void shouldProduceAndFetchInsideTls() throws Exception {
        final int tlsPort = FreePorts.next();
        try (RunningBroker broker = RunningBroker.start(Map.of("kafka.tls-enabled", "true",
                "kafka.tls-port", Integer.toString(tlsPort)))) {
            assertThat(broker.process().stdout()).contains("kafka-tls=").contains(":" + tlsPort);
            final String pem = Files.readString(broker.dataDir().resolve("tls/self-signed.crt"));
            final Map<String, Object> tls = new HashMap<>();
            tls.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + tlsPort);
            tls.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
            tls.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            tls.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, pem);
            tls.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
            try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, tls)) {
                producer.send(new ProducerRecord<>("secure", 0, "k", "over tls")).get(30, TimeUnit.SECONDS);
            }
            final TopicPartition tp = new TopicPartition("secure", 0);
            try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, tls)) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                final List<String> values = new ArrayList<>();
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (values.isEmpty() && System.nanoTime() < end) {
                    consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
                }
                assertThat(values).containsExactly("over tls");
            }
        }
    }

    @Test
    void shouldRefuseKafkaClientsOfASecuredBroker() {
        try (RunningBroker broker = RunningBroker.start(Map.of("security.enabled", "true",
                "security.secret-key", "kafka-it-secret"))) {
            try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of(
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000))) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("open", "x")).get(30, TimeUnit.SECONDS))
                        .satisfiesAnyOf(
                                e -> assertThat(e).isInstanceOf(ExecutionException.class)
                                        .cause().isInstanceOfAny(ClusterAuthorizationException.class,
                                                TopicAuthorizationException.class),
                                e -> assertThat(e).isInstanceOfAny(ClusterAuthorizationException.class,
                                        TopicAuthorizationException.class));
            }
        }
    }
}
