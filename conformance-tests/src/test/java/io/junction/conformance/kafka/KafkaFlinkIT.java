package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Flink job on a local mini cluster reads a topic with flink-connector-kafka's KafkaSource (bounded at the offsets
 * it starts with), transforms each record and writes the results with KafkaSink (at least once: no checkpoints in a
 * bounded job this short).
 */
@WithBroker
class KafkaFlinkIT {
    private static RunningBroker broker;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic("flink-in", 2, (short) 1), new NewTopic("flink-out", 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldRunAFlinkJobReadingAndWritingTheBroker() throws Exception {
        final List<String> input = new ArrayList<>();
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < 100; i++) {
                input.add("event-" + i);
                producer.send(new ProducerRecord<>("flink-in", "k" + i, "event-" + i));
            }
            producer.flush();
        }
        final KafkaSource<String> source = KafkaSource.<String>builder().setBootstrapServers(broker.kafkaBootstrap())
                .setTopics("flink-in").setGroupId("flink-job")
                .setStartingOffsets(OffsetsInitializer.earliest()).setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema()).build();
        final KafkaSink<String> sink = KafkaSink.<String>builder().setBootstrapServers(broker.kafkaBootstrap())
                .setRecordSerializer(KafkaRecordSerializationSchema.builder().setTopic("flink-out")
                        .setValueSerializationSchema(new SimpleStringSchema()).build())
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE).build();
        final StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "junction-in")
                .map(v -> v.toUpperCase(Locale.ROOT))
                .sinkTo(sink);
        env.execute("junction-flink-it");

        final List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of())) {
            final List<TopicPartition> tps = List.of(new TopicPartition("flink-out", 0),
                    new TopicPartition("flink-out", 1));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (out.size() < input.size() && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> out.add(r.value()));
            }
        }
        assertThat(out).containsExactlyInAnyOrderElementsOf(input.stream()
                .map(v -> v.toUpperCase(Locale.ROOT)).toList());
    }
}
