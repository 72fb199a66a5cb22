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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.RecallReceipt;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.java.exception.BadRequestException;
import org.apache.rocketmq.client.java.exception.NotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Producers of the 5.x Java client: normal, FIFO and delayed messages, read back with a SimpleConsumer; recalling a
 * delayed message.
 */
@WithBroker
class GrpcProducerIT {
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
    void shouldSendNormalMessageWithTagKeysAndPropertiesIntact() throws Exception {
        final String topic = unique("grpc-normal");
        final Producer producer = clients.producer(topic);
        final SendReceipt receipt = producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setTag("TagA")
                .setKeys("key-1", "key-2").addProperty("color", "red").addProperty("size", "7")
                .setBody(utf8("hello grpc")).build());
        assertThat(receipt.getMessageId().toString()).isNotEmpty();

        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final List<MessageView> got = GrpcClients.drain(consumer, 1, Duration.ofSeconds(20));
        assertThat(got).hasSize(1);
        final MessageView v = got.get(0);
        assertThat(body(v)).isEqualTo("hello grpc");
        assertThat(v.getTopic()).isEqualTo(topic);
        assertThat(v.getTag()).contains("TagA");
        assertThat(v.getKeys()).containsExactlyInAnyOrder("key-1", "key-2");
        assertThat(v.getProperties()).containsEntry("color", "red").containsEntry("size", "7");
        assertThat(v.getMessageId().toString()).isEqualTo(receipt.getMessageId().toString());
        assertThat(v.getDeliveryAttempt()).isEqualTo(1);
    }

    @Test
    void shouldKeepFifoOrderWithinAMessageGroup() throws Exception {
        final String topic = unique("grpc-fifo");
        final Producer producer = clients.producer(topic);
        final int n = 20;
        for (int i = 0; i < n; i++) {
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setMessageGroup(i % 2 == 0 ? "even" : "odd")
                    .setBody(utf8(Integer.toString(i))).build());
        }
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final List<MessageView> got = GrpcClients.drain(consumer, n, Duration.ofSeconds(30));
        assertThat(got).hasSize(n);
        final Map<String, List<Integer>> byGroup = new HashMap<>();
        for (MessageView v : got) {
            assertThat(v.getMessageGroup()).isPresent();
            byGroup.computeIfAbsent(v.getMessageGroup().get(), k -> new ArrayList<>()).add(Integer.parseInt(body(v)));
        }
        assertThat(byGroup.get("even")).isSorted().hasSize(n / 2);
        assertThat(byGroup.get("odd")).isSorted().hasSize(n / 2);
    }

    @Test
    void shouldDeliverDelayedMessageAfterItsDeliveryTimeNotBefore() throws Exception {
        final String topic = unique("grpc-delay");
        final Producer producer = clients.producer(topic);
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final long deliverAt = System.currentTimeMillis() + 4_000;
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setDeliveryTimestamp(deliverAt)
                .setBody(utf8("later")).build());
        final List<MessageView> got = GrpcClients.drain(consumer, 1, Duration.ofSeconds(20));
        final long arrived = System.currentTimeMillis();
        assertThat(got).hasSize(1);
        assertThat(body(got.get(0))).isEqualTo("later");
        assertThat(arrived).isGreaterThanOrEqualTo(deliverAt);
        assertThat(got.get(0).getDeliveryTimestamp()).contains(deliverAt);
    }

    @Test
    void shouldNeverDeliverADelayedMessageRecalledBeforeItsTime() throws Exception {
        final String topic = unique("grpc-recall");
        final Producer producer = clients.producer(topic);
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-g"), topic);
        final long deliverAt = System.currentTimeMillis() + 3_000;
        final SendReceipt recalled = producer.send(PROVIDER.newMessageBuilder().setTopic(topic)
                .setDeliveryTimestamp(deliverAt).setBody(utf8("recalled")).build());
        final SendReceipt kept = producer.send(PROVIDER.newMessageBuilder().setTopic(topic)
                .setDeliveryTimestamp(deliverAt).setBody(utf8("kept")).build());
        assertThat(recalled.getRecallHandle()).isNotEmpty().isNotEqualTo(kept.getRecallHandle());
        final RecallReceipt receipt = producer.recallMessage(topic, recalled.getRecallHandle());
        assertThat(receipt.getMessageId().toString()).isEqualTo(recalled.getMessageId().toString());
        // a second recall before the time is harmless
        producer.recallMessage(topic, recalled.getRecallHandle());

        // receive until well past the delivery time: only the kept message comes
        final List<MessageView> got = GrpcClients.drain(consumer, 2,
                Duration.ofMillis(deliverAt + 3_000 - System.currentTimeMillis()));
        assertThat(got).extracting(GrpcClients::body).containsExactly("kept");
        assertThat(got.get(0).getMessageId().toString()).isEqualTo(kept.getMessageId().toString());

        // too late now, for either message; a garbled handle or one of another topic is a bad request
        assertThatThrownBy(() -> producer.recallMessage(topic, kept.getRecallHandle()))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> producer.recallMessage(topic, recalled.getRecallHandle()))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> producer.recallMessage(topic, "bm90LWEtaGFuZGxl"))
                .isInstanceOf(BadRequestException.class);
        final Producer other = clients.producer(topic + "-other");
        assertThatThrownBy(() -> other.recallMessage(topic + "-other", kept.getRecallHandle()))
                .isInstanceOf(BadRequestException.class);
        // a message sent without delay gets no recall handle
        assertThat(producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("now")).build())
                .getRecallHandle()).isNullOrEmpty();
    }
}
