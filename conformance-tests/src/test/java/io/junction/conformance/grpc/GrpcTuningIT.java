package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tuning keys a CI run of retry and transaction flows sets to a few seconds, seen from the 5.x Java client:
 * transaction check-back timing and its maximum, a 1 s invisible duration with a fast revive, and the invisible
 * duration bounds. Timing windows are asserted loosely: never earlier than configured, within generous slack later.
 */
@WithBroker(settings = {
        "store.transaction-first-check-ms=" + GrpcTuningIT.FIRST_CHECK_MS,
        "store.transaction-check-interval-ms=" + GrpcTuningIT.CHECK_INTERVAL_MS,
        "store.transaction-max-checks=2",
        "grpc.min-invisible-ms=1000",
        "grpc.max-invisible-ms=60000",
        "store.pop-revive-interval-ms=50"})
class GrpcTuningIT {
    static final long FIRST_CHECK_MS = 3000;
    static final long CHECK_INTERVAL_MS = 2000;
    /** Clock and scheduling slack below a configured time (the broker's wall clock against this JVM's). */
    private static final long EARLY_SLACK_MS = 150;
    private static final Duration LATE_SLACK = Duration.ofSeconds(10);

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

    @Test
    void shouldCheckBackAfterTheFirstCheckDelayThenEachIntervalAndRollBackAfterTheMaximum() throws Exception {
        final String topic = unique("grpc-tune-tx");
        final List<Long> checkedAt = new CopyOnWriteArrayList<>();
        final Producer producer = clients.track(PROVIDER.newProducerBuilder()
                .setClientConfiguration(clients.configuration()).setTopics(topic)
                .setTransactionChecker(v -> {
                    checkedAt.add(System.nanoTime());
                    return TransactionResolution.UNKNOWN;
                }).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);

        final Transaction transaction = producer.beginTransaction();
        final long sent = System.nanoTime();
        final SendReceipt receipt = producer.send(PROVIDER.newMessageBuilder().setTopic(topic)
                .setBody(utf8("undecided")).build(), transaction);

        await().atMost(Duration.ofMillis(FIRST_CHECK_MS).plus(LATE_SLACK)).until(() -> checkedAt.size() >= 1);
        assertThat(millisBetween(sent, checkedAt.get(0))).as("first check-back, ms after the send")
                .isGreaterThanOrEqualTo(FIRST_CHECK_MS - EARLY_SLACK_MS);
        await().atMost(Duration.ofMillis(CHECK_INTERVAL_MS).plus(LATE_SLACK)).until(() -> checkedAt.size() >= 2);
        assertThat(millisBetween(checkedAt.get(0), checkedAt.get(1))).as("ms between check-backs")
                .isGreaterThanOrEqualTo(CHECK_INTERVAL_MS - EARLY_SLACK_MS);

        // after the second (the maximum), the next due check rolls the half message back instead of asking
        await().atMost(Duration.ofMillis(CHECK_INTERVAL_MS).plus(LATE_SLACK)).until(() -> broker.process().stdout()
                .contains("Transaction of half message " + receipt.getMessageId().toString() + " "));
        assertThat(broker.process().stdout()).contains("still unresolved after 2 checks: applying ROLLBACK");
        assertThat(checkedAt).hasSize(2);
        assertThatThrownBy(transaction::commit).as("nothing is left to commit").isInstanceOf(ClientException.class);
        assertThat(consumer.receive(16, Duration.ofSeconds(10))).isEmpty();
    }

    private static long millisBetween(final long fromNanos, final long toNanos) {
        return Duration.ofNanos(toNanos - fromNanos).toMillis();
    }

    @Test
    void shouldRedeliverAMessageNotAckedWithinOneSecond() throws Exception {
        final String topic = unique("grpc-tune-revive");
        final Producer producer = clients.producer(topic);
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("again")).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);

        MessageView first = null;
        long receivedFrom = 0;
        final long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (first == null && System.nanoTime() < end) {
            receivedFrom = System.nanoTime();
            final List<MessageView> got = consumer.receive(1, Duration.ofSeconds(1));
            first = got.isEmpty() ? null : got.get(0);
        }
        assertThat(first).as("the message, received once").isNotNull();

        MessageView again = null;
        while (again == null && System.nanoTime() < end) {
            final List<MessageView> got = consumer.receive(1, Duration.ofSeconds(10));
            again = got.isEmpty() ? null : got.get(0);
        }
        final long back = millisBetween(receivedFrom, System.nanoTime());
        assertThat(again).as("the unacked message, delivered again").isNotNull();
        assertThat(body(again)).isEqualTo("again");
        assertThat(again.getMessageId()).isEqualTo(first.getMessageId());
        assertThat(again.getDeliveryAttempt()).isEqualTo(2);
        assertThat(back).as("ms from the first receive to the redelivery")
                .isBetween(1000 - EARLY_SLACK_MS, 1000 + LATE_SLACK.toMillis());
        consumer.ack(again);
    }

    @Test
    void shouldRefuseInvisibleDurationsOutsideTheConfiguredBounds() throws Exception {
        final String topic = unique("grpc-tune-bounds");
        clients.producer(topic).send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("x")).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);

        assertThatThrownBy(() -> consumer.receive(1, Duration.ofMillis(999)))
                .isInstanceOf(ClientException.class).hasMessageContaining("40011");
        assertThatThrownBy(() -> consumer.receive(1, Duration.ofMillis(60_001)))
                .isInstanceOf(ClientException.class).hasMessageContaining("40011");
        // a duration within them is accepted
        final List<MessageView> got = GrpcClients.drain(consumer, 1, Duration.ofSeconds(30));
        assertThat(got).extracting(GrpcClients::body).containsExactly("x");
    }
}
