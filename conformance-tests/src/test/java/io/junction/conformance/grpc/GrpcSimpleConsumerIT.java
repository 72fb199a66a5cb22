package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SimpleConsumer of the 5.x Java client: receive, ack, invisible durations, filters, errors. */
// Invisible durations of seconds (the default floor is RocketMQ's 10 s), yet above the consumers' 2 s await.
@WithBroker(settings = {"grpc.min-invisible-ms=2000"})
class GrpcSimpleConsumerIT {
    private static final Duration INVISIBLE = Duration.ofSeconds(5);

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

    private static List<MessageView> receiveUntil(final SimpleConsumer consumer, final Duration invisible,
                                                  final Duration deadline) throws ClientException {
        final long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            final List<MessageView> got = consumer.receive(1, invisible);
            if (!got.isEmpty()) {
                return got;
            }
        }
        return List.of();
    }

    @Test
    void shouldNotRedeliverAnAckedMessage() throws Exception {
        final String topic = unique("grpc-ack");
        final Producer producer = clients.producer(topic);
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("once")).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final List<MessageView> got = receiveUntil(consumer, INVISIBLE, Duration.ofSeconds(20));
        assertThat(got).hasSize(1);
        consumer.ack(got.get(0));
        // an acked message stays gone past its invisible duration
        final long end = System.nanoTime() + INVISIBLE.plusSeconds(2).toNanos();
        while (System.nanoTime() < end) {
            assertThat(consumer.receive(1, INVISIBLE)).isEmpty();
        }
    }

    @Test
    void shouldRedeliverAnUnackedMessageAfterItsInvisibleDuration() throws Exception {
        final String topic = unique("grpc-unacked");
        final Producer producer = clients.producer(topic);
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("again")).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final List<MessageView> first = receiveUntil(consumer, INVISIBLE, Duration.ofSeconds(20));
        assertThat(first).hasSize(1);
        final long received = System.currentTimeMillis();
        assertThat(first.get(0).getDeliveryAttempt()).isEqualTo(1);
        // invisible for now
        assertThat(consumer.receive(1, INVISIBLE)).isEmpty();
        final List<MessageView> second = receiveUntil(consumer, INVISIBLE, Duration.ofSeconds(60));
        assertThat(second).hasSize(1);
        assertThat(System.currentTimeMillis() - received).isGreaterThanOrEqualTo(INVISIBLE.toMillis() - 500);
        assertThat(second.get(0).getMessageId()).isEqualTo(first.get(0).getMessageId());
        assertThat(body(second.get(0))).isEqualTo("again");
        assertThat(second.get(0).getDeliveryAttempt()).isEqualTo(2);
        consumer.ack(second.get(0));
    }

    @Test
    void shouldRedeliverAfterChangeInvisibleDuration() throws Exception {
        final String topic = unique("grpc-change");
        final Producer producer = clients.producer(topic);
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("soon")).build());
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final List<MessageView> first = receiveUntil(consumer, Duration.ofMinutes(5), Duration.ofSeconds(20));
        assertThat(first).hasSize(1);
        consumer.changeInvisibleDuration(first.get(0), Duration.ofSeconds(2));
        final List<MessageView> second = receiveUntil(consumer, Duration.ofSeconds(30), Duration.ofSeconds(60));
        assertThat(second).hasSize(1);
        assertThat(second.get(0).getMessageId()).isEqualTo(first.get(0).getMessageId());
        consumer.ack(second.get(0));
    }

    @Test
    void shouldFilterByTagAndBySql() throws Exception {
        final String topic = unique("grpc-filter");
        final Producer producer = clients.producer(topic);
        for (int i = 0; i < 6; i++) {
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setTag(i % 2 == 0 ? "even" : "odd")
                    .addProperty("n", Integer.toString(i)).setBody(utf8(Integer.toString(i))).build());
        }
        final SimpleConsumer byTag = clients.simpleConsumer(unique("grpc-g"), topic, GrpcClients.tag("odd"));
        final SimpleConsumer bySql = clients.simpleConsumer(unique("grpc-g"), topic,
                new FilterExpression("n >= 4", FilterExpressionType.SQL92));
        final List<String> odd = new ArrayList<>();
        GrpcClients.drain(byTag, 3, Duration.ofSeconds(20)).forEach(v -> odd.add(body(v)));
        final List<String> big = new ArrayList<>();
        GrpcClients.drain(bySql, 2, Duration.ofSeconds(20)).forEach(v -> big.add(body(v)));
        assertThat(odd).containsExactlyInAnyOrder("1", "3", "5");
        assertThat(big).containsExactlyInAnyOrder("4", "5");
    }

    @Test
    void shouldRefuseAMalformedSqlFilter() throws Exception {
        final String topic = unique("grpc-badsql");
        clients.producer(topic);
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic,
                new FilterExpression("n >>= (", FilterExpressionType.SQL92));
        assertThatThrownBy(() -> consumer.receive(1, Duration.ofSeconds(10)))
                .isInstanceOf(ClientException.class)
                .hasMessageContaining("40010");
    }
}
