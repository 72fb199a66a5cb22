package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Transactional kafka-clients producers: committed records reach read_committed consumers and aborted ones never;
 * offsets sent to a transaction apply only when it commits; a second producer with the same transactional id fences
 * the first.
 */
@WithBroker
class KafkaTransactionsIT {
    private static RunningBroker broker;
    private static Admin admin;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        admin = Admin.create(p);
        admin.createTopics(List.of(new NewTopic("txn-out", 2, (short) 1), new NewTopic("txn-in", 1, (short) 1),
                new NewTopic("txn-fenced", 1, (short) 1), new NewTopic("txn-listed", 2, (short) 1))).all()
                .get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
    }

    private static KafkaProducer<String, String> transactional(final String id) {
        final KafkaProducer<String, String> p = KafkaClients.stringProducer(broker, Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, id, ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000));
        p.initTransactions();
        return p;
    }

    private static List<String> readCommitted(final String topic, final int partitions, final int expected) {
        final List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            tps.add(new TopicPartition(topic, i));
        }
        final List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < expected && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
            }
            // Whatever else would come arrives within a few more polls.
            for (int i = 0; i < 3; i++) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    @Test
    void shouldDeliverCommittedRecordsAndNeverAbortedOnes() {
        try (KafkaProducer<String, String> producer = transactional("tx-out")) {
            producer.beginTransaction();
            for (int i = 0; i < 4; i++) {
                producer.send(new ProducerRecord<>("txn-out", i % 2, "k" + i, "committed-" + i));
            }
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("txn-out", 0, "x", "aborted-0"));
            producer.send(new ProducerRecord<>("txn-out", 1, "y", "aborted-1"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("txn-out", 1, "z", "committed-4"));
            producer.commitTransaction();
        }
        assertThat(readCommitted("txn-out", 2, 5)).containsExactlyInAnyOrder("committed-0", "committed-1",
                "committed-2", "committed-3", "committed-4");
    }

    @Test
    void shouldListAndDescribeTransactions() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-listed")) {
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("txn-listed", 1, "k", "open"));
            producer.flush();
            final TransactionDescription open = admin.describeTransactions(List.of("tx-listed"))
                    .description("tx-listed").get(30, TimeUnit.SECONDS);
            assertThat(open.state()).isEqualTo(TransactionState.ONGOING);
            assertThat(open.topicPartitions()).containsExactly(new TopicPartition("txn-listed", 1));
            assertThat(open.transactionStartTimeMs()).isPresent();
            final long producerId = open.producerId();
            assertThat(admin.listTransactions().all().get(30, TimeUnit.SECONDS))
                    .filteredOn(l -> l.transactionalId().equals("tx-listed")).extracting(TransactionListing::state,
                            TransactionListing::producerId)
                    .containsExactly(tuple(TransactionState.ONGOING, producerId));

            producer.commitTransaction();
            final TransactionDescription done = admin.describeTransactions(List.of("tx-listed"))
                    .description("tx-listed").get(30, TimeUnit.SECONDS);
            assertThat(done.state()).isEqualTo(TransactionState.EMPTY);
            assertThat(done.topicPartitions()).isEmpty();
            assertThat(done.producerId()).isEqualTo(producerId);
        }
        assertThatThrownBy(() -> admin.describeTransactions(List.of("tx-never-used")).description("tx-never-used")
                .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(
                TransactionalIdNotFoundException.class);
    }

    @Test
    void shouldApplyOffsetsSentToATransactionOnlyOnCommit() throws Exception {
        final TopicPartition in = new TopicPartition("txn-in", 0);
        final Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(in, new OffsetAndMetadata(7));
        try (KafkaProducer<String, String> producer = transactional("tx-offsets")) {
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("txn-out", 0, "o", "with-offsets-aborted"));
            producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata("txn-group"));
            producer.abortTransaction();
            assertThat(committed("txn-group", in)).isNull();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>("txn-in", 0, "o", "with-offsets-committed"));
            producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata("txn-group"));
            producer.commitTransaction();
            assertThat(committed("txn-group", in)).isEqualTo(7L);
        }
        assertThat(readCommitted("txn-in", 1, 1)).containsExactly("with-offsets-committed");
    }

    private static Long committed(final String group, final TopicPartition tp) throws Exception {
        final OffsetAndMetadata o = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).get(tp);
        return o == null ? null : o.offset();
    }

    @Test
    void shouldFenceTheOlderProducerOfATransactionalId() {
        final KafkaProducer<String, String> first = transactional("tx-fenced");
        try {
            first.beginTransaction();
            first.send(new ProducerRecord<>("txn-fenced", 0, "a", "from-the-zombie"));
            first.flush();
            try (KafkaProducer<String, String> second = transactional("tx-fenced")) {
                // The zombie's open transaction was aborted when the new producer took the id over.
                assertThatThrownBy(first::commitTransaction).isInstanceOf(ProducerFencedException.class);
                second.beginTransaction();
                second.send(new ProducerRecord<>("txn-fenced", 0, "b", "from-the-new-one"));
                second.commitTransaction();
            }
        } finally {
            first.close(Duration.ofSeconds(5));
        }
        assertThat(readCommitted("txn-fenced", 1, 1)).containsExactly("from-the-new-one");
    }
}
