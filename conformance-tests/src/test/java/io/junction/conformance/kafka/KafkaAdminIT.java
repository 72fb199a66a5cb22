package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** AdminClient against the broker: topics, partitions, configs, record deletion, the cluster and consumer groups. */
@WithBroker(settings = {"kafka.group-initial-rebalance-delay-ms=0"})
class KafkaAdminIT {
    private static RunningBroker broker;
    private static Admin admin;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        admin = Admin.create(p);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
    }

    @Test
    void shouldCreateDescribeGrowAndDeleteTopics() throws Exception {
        admin.createTopics(List.of(new NewTopic("admin-a", 3, (short) 1).configs(Map.of("cleanup.policy", "compact",
                "retention.ms", "3600000")))).all().get(30, TimeUnit.SECONDS);
        final TopicDescription d = admin.describeTopics(List.of("admin-a")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("admin-a");
        assertThat(d.partitions()).hasSize(3);
        assertThat(d.partitions().get(0).leader().id()).isEqualTo(0);
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "admin-a");
        final Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                .get(resource);
        assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
        assertThat(config.get("cleanup.policy").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(config.get("retention.ms").value()).isEqualTo("3600000");
        assertThat(config.get("max.message.bytes")).isNotNull();

        assertCause(() -> admin.createTopics(List.of(new NewTopic("admin-a", 1, (short) 1))).all().get(),
                TopicExistsException.class);
        assertCause(() -> admin.createTopics(List.of(new NewTopic("admin-b", 1, (short) 3))).all().get(),
                InvalidReplicationFactorException.class);
        assertCause(() -> admin.createTopics(List.of(new NewTopic("bad name!", 1, (short) 1))).all().get(),
                InvalidTopicException.class);

        admin.createPartitions(Map.of("admin-a", NewPartitions.increaseTo(5))).all().get(30, TimeUnit.SECONDS);
        assertThat(admin.describeTopics(List.of("admin-a")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("admin-a").partitions()).hasSize(5);
        assertCause(() -> admin.createPartitions(Map.of("admin-a", NewPartitions.increaseTo(2))).all().get(),
                InvalidPartitionsException.class);

        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("admin-a");
        admin.deleteTopics(List.of("admin-a")).all().get(30, TimeUnit.SECONDS);
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("admin-a");
        assertCause(() -> admin.deleteTopics(List.of("admin-a")).all().get(), UnknownTopicOrPartitionException.class);
    }

    @Test
    void shouldDeleteRecordsBeforeAnOffset() throws Exception {
        admin.createTopics(List.of(new NewTopic("admin-purge", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        final TopicPartition tp = new TopicPartition("admin-purge", 0);
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("admin-purge", 0, null, "r" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        final long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp)
                .get(30, TimeUnit.SECONDS).lowWatermark();
        assertThat(low).isEqualTo(4);
        assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset()).isEqualTo(4);
        assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset()).isEqualTo(10);
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 1); // below the log start: reset to the earliest, which is now 4
            final List<String> values = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < 6 && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
            }
            assertThat(values).containsExactly("r4", "r5", "r6", "r7", "r8", "r9");
        }
    }

    @Test
    void shouldDescribeTheClusterAndConsumerGroups() throws Exception {
        final DescribeClusterResult cluster = admin.describeCluster();
        assertThat(cluster.nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
        assertThat(cluster.controller().get(30, TimeUnit.SECONDS).id()).isEqualTo(0);
        assertThat(cluster.clusterId().get(30, TimeUnit.SECONDS)).isNotBlank();

        admin.createTopics(List.of(new NewTopic("admin-groups", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            producer.send(new ProducerRecord<>("admin-groups", 0, null, "x")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, "admin-g", ConsumerConfig.CLIENT_ID_CONFIG, "admin-member",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false))) {
            consumer.subscribe(List.of("admin-groups"));
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.assignment().isEmpty() && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(200));
            }
            consumer.commitSync(Map.of(new TopicPartition("admin-groups", 0), new OffsetAndMetadata(1)));
            final ConsumerGroupDescription g = admin.describeConsumerGroups(List.of("admin-g")).all()
                    .get(30, TimeUnit.SECONDS).get("admin-g");
            assertThat(g.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(g.members()).hasSize(1);
            assertThat(g.members().iterator().next().clientId()).isEqualTo("admin-member");
            assertThat(g.members().iterator().next().assignment().topicPartitions()).containsExactlyInAnyOrder(
                    new TopicPartition("admin-groups", 0), new TopicPartition("admin-groups", 1));
            assertThat(admin.listGroups().all().get(30, TimeUnit.SECONDS)).extracting(GroupListing::groupId)
                    .contains("admin-g");
        }
        // The member left: the group is empty, and its committed offsets can be read and changed.
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.describeConsumerGroups(List.of("admin-g")).all()
                .get().get("admin-g").groupState() == GroupState.EMPTY);
        final TopicPartition tp = new TopicPartition("admin-groups", 0);
        assertThat(admin.listConsumerGroupOffsets("admin-g").partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)).containsEntry(tp, new OffsetAndMetadata(1, ""));
        admin.alterConsumerGroupOffsets("admin-g", Map.of(tp, new OffsetAndMetadata(0))).all()
                .get(30, TimeUnit.SECONDS);
        assertThat(admin.listConsumerGroupOffsets("admin-g").partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).get(tp).offset()).isZero();
        assertThat(Set.copyOf(admin.listConsumerGroupOffsets("admin-g").partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).keySet())).containsExactly(tp);
    }

    private interface Call {
        Object run() throws Exception;
    }

    private static void assertCause(final Call call, final Class<? extends Throwable> cause) {
        assertThatThrownBy(call::run).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(cause);
    }
}
