package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transactional producer of the 5.x Java client: commit delivers, rollback drops, and an unresolved half message is
 * checked back over the Telemetry stream (RecoverOrphanedTransactionCommand), with the Remoting front-end running
 * beside it (each front-end adds its own transaction checker).
 */
@WithBroker(settings = {"store.transaction-first-check-ms=2000"})
class GrpcTransactionIT {
    static RunningBroker broker;
    GrpcClients clients;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @BeforeEach
    void clients() {
        clients = new GrpcClients(broker);
    }

    @AfterEach
    void close() {
        clients.close();
    }

    private Producer transactional(final String topic, final List<String> checked) throws Exception {
        return clients.track(PROVIDER.newProducerBuilder().setClientConfiguration(clients.configuration())
                .setTopics(topic)
                .setTransactionChecker(v -> {
                    final String b = body(v);
                    checked.add(b);
                    return b.startsWith("commit") ? TransactionResolution.COMMIT : TransactionResolution.ROLLBACK;
                }).build());
    }

    @Test
    void shouldDeliverCommittedAndDropRolledBackMessages() throws Exception {
        final String topic = unique("grpc-tx");
        // The check-back (2 s after the send) must not resolve these first: this producer answers it UNKNOWN, so the
        // explicit rollback and commit below decide, however slow the machine is.
        final Producer producer = clients.track(PROVIDER.newProducerBuilder()
                .setClientConfiguration(clients.configuration()).setTopics(topic)
                .setTransactionChecker(v -> TransactionResolution.UNKNOWN).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);

        final Transaction commit = producer.beginTransaction();
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("committed")).build(), commit);
        final Transaction rollback = producer.beginTransaction();
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("rolled-back")).build(), rollback);
        // not visible before the commit
        assertThat(consumer.receive(1, Duration.ofSeconds(10))).isEmpty();
        rollback.rollback();
        commit.commit();

        final List<String> got = new ArrayList<>();
        final long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        while (System.nanoTime() < end) {
            for (MessageView v : consumer.receive(16, Duration.ofSeconds(10))) {
                got.add(body(v));
                consumer.ack(v);
            }
        }
        assertThat(got).containsExactly("committed");
    }

    @Test
    void shouldResolveAnUnansweredTransactionByCheckingBack() throws Exception {
        final String topic = unique("grpc-tx-check");
        final List<String> checked = new CopyOnWriteArrayList<>();
        final Producer producer = transactional(topic, checked);
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);

        // sent, never committed nor rolled back: the server asks the producer
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("commit-me")).build(),
                producer.beginTransaction());
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("drop-me")).build(),
                producer.beginTransaction());

        final List<MessageView> got = GrpcClients.drain(consumer, 1, Duration.ofSeconds(30));
        assertThat(got).extracting(GrpcClients::body).containsExactly("commit-me");
        assertThat(checked).contains("commit-me");
        // the rolled-back one never shows up
        assertThat(consumer.receive(16, Duration.ofSeconds(10))).isEmpty();
        assertThat(checked).contains("drop-me");
    }
}
