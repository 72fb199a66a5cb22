package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Compacted topics through AdminClient: {@code cleanup.policy=compact} set at creation or changed later, shown by
 * DescribeConfigs, keyless records refused, tombstones read back as null values. (What retention keeps of a compacted
 * topic is the core's: CompactedRetentionTest.)
 */
@WithBroker
class KafkaCompactedTopicIT {
    private static RunningBroker broker;
    private static Admin admin;

    @BeforeAll
    static void start(final RunningBroker running) {
        broker = running;
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        admin = Admin.create(p);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
    }

    private static String policy(final String topic) throws Exception {
        final ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        final Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
        return c.get("cleanup.policy").value();
    }

    @Test
    void shouldCreateACompactedTopicAndKeepItsRecordsByKey() throws Exception {
        admin.createTopics(List.of(new NewTopic("table", 1, (short) 1)
                .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
        assertThat(policy("table")).isEqualTo("compact");
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            producer.send(new ProducerRecord<>("table", 0, "a", "1")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>("table", 0, "a", "2")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>("table", 0, "b", null)).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("table", 0, null, "keyless"))
                    .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidRecordException.class);
        }
        final TopicPartition tp = new TopicPartition("table", 0);
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final List<ConsumerRecord<String, String>> records = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.size() < 3 && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(300)).forEach(records::add);
            }
            assertThat(records).extracting(ConsumerRecord::key).containsExactly("a", "a", "b");
            assertThat(records).extracting(ConsumerRecord::value).containsExactly("1", "2", null);
        }
    }

    @Test
    void shouldChangeTheCleanupPolicyOfATopic() throws Exception {
        admin.createTopics(List.of(new NewTopic("changes", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        assertThat(policy("changes")).isEqualTo("delete");
        final ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, "changes");
        final Map<ConfigResource, Collection<AlterConfigOp>> set = Map.of(r, List.of(new AlterConfigOp(
                new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(set).all().get(30, TimeUnit.SECONDS);
        assertThat(policy("changes")).isEqualTo("compact");
        admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.APPEND))))
                .all().get(30, TimeUnit.SECONDS);
        assertThat(policy("changes")).isEqualTo("compact,delete");
        admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                new ConfigEntry("cleanup.policy", ""), AlterConfigOp.OpType.DELETE)))).all().get(30, TimeUnit.SECONDS);
        assertThat(policy("changes")).isEqualTo("delete");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                new ConfigEntry("cleanup.policy", "shred"), AlterConfigOp.OpType.SET)))).all()
                .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidConfigurationException.class);
    }
}
