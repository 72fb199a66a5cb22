package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * AdminClient's describeProducers (what {@code kafka-transactions.sh describe-producers} shows): the idempotent and
 * transactional producers of a partition with their epoch and last sequence, an idempotent one still after a restart.
 */
@WithBroker
class KafkaDescribeProducersIT {
    private static Admin admin(final RunningBroker broker) {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        return Admin.create(p);
    }

    private static List<ProducerState> producers(final Admin admin, final TopicPartition tp) throws Exception {
        return admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS).activeProducers();
    }

    @Test
    void shouldShowAPartitionsProducersWithTheirLastSequenceAlsoAfterARestart(final RunningBroker broker)
            throws Exception {
        final TopicPartition written = new TopicPartition("described", 0);
        final TopicPartition untouched = new TopicPartition("described", 1);
        final long idempotentId;
        try (Admin admin = admin(broker)) {
            admin.createTopics(List.of(new NewTopic("described", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> idempotent = KafkaClients.stringProducer(broker, Map.of(
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true))) {
                for (int i = 0; i < 3; i++) { // one batch each: sequences 0, 1, 2
                    idempotent.send(new ProducerRecord<>("described", 0, "k", "v" + i)).get(30, TimeUnit.SECONDS);
                }
            }
            final long transactionalId;
            try (KafkaProducer<String, String> transactional = KafkaClients.stringProducer(broker, Map.of(
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, "described-tx"))) {
                transactional.initTransactions();
                transactional.beginTransaction();
                transactional.send(new ProducerRecord<>("described", 0, "t", "t0"));
                transactional.send(new ProducerRecord<>("described", 0, "t", "t1"));
                transactional.commitTransaction();
                transactionalId = admin.describeTransactions(List.of("described-tx")).description("described-tx")
                        .get(30, TimeUnit.SECONDS).producerId();
            }

            final List<ProducerState> before = producers(admin, written);
            assertThat(before).hasSize(2);
            final ProducerState tx = before.stream().filter(p -> p.producerId() == transactionalId).findFirst()
                    .orElseThrow();
            // The two records went in one batch: sequences 0 and 1.
            assertThat(tx.lastSequence()).isEqualTo(1);
            assertThat(tx.currentTransactionStartOffset()).isEmpty();
            final ProducerState plain = before.stream().filter(p -> p.producerId() != transactionalId).findFirst()
                    .orElseThrow();
            assertThat(plain.lastSequence()).isEqualTo(2);
            assertThat(plain.producerEpoch()).isZero();
            assertThat(plain.lastTimestamp()).isPositive();
            idempotentId = plain.producerId();
            assertThat(producers(admin, untouched)).isEmpty();
        }

        broker.restart();
        try (Admin admin = admin(broker)) {
            // Read back from the partition's marked batches.
            assertThat(producers(admin, written)).filteredOn(p -> p.producerId() == idempotentId)
                    .singleElement().satisfies(p -> {
                        assertThat(p.lastSequence()).isEqualTo(2);
                        assertThat(p.producerEpoch()).isZero();
                    });
        }
    }
}
