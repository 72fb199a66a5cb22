package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PushConsumer of the 5.x Java client: server-side assignment, long polling, ack, retry on FAILURE, and the server
 * keeping a message invisible while a listener still consumes it.
 */
// The shortest invisible time, so the auto-renew test needs a listener of seconds only; the shortest long-polling
// timeout (5 s by default) because closing an idle push consumer waits for its parked receive, and each test closes
// some.
@WithBroker(settings = {"grpc.push-invisible-ms=10000", "grpc.long-polling-timeout-ms=1000"})
class GrpcPushConsumerIT {
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
    void shouldReceiveEveryMessageWithPropertiesTagAndKeys() throws Exception {
        final String topic = unique("grpc-push");
        final Producer producer = clients.producer(topic);
        final List<MessageView> got = new CopyOnWriteArrayList<>();
        final AtomicLong firstDelivery = new AtomicLong();
        final PushConsumer consumer = PROVIDER.newPushConsumerBuilder().setClientConfiguration(clients.configuration())
                .setConsumerGroup(unique("grpc-push-g"))
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setMessageListener(v -> {
                    firstDelivery.compareAndSet(0, System.nanoTime());
                    got.add(v);
                    return ConsumeResult.SUCCESS;
                }).build();
        final int n = 30;
        final long sent = System.nanoTime();
        for (int i = 0; i < n; i++) {
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setTag("T" + (i % 3)).setKeys("k" + i)
                    .addProperty("index", Integer.toString(i)).setBody(utf8("m" + i)).build());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> got.size() >= n);
        // The client asks for its assignment a second after start, then its first receive returns at once.
        assertThat(Duration.ofNanos(firstDelivery.get() - sent)).isLessThan(Duration.ofSeconds(5));
        assertThat(got).hasSize(n);
        // An idle push consumer's close waits for its parked receive: the long-polling timeout the server told it
        // (1 s here) bounds that.
        final long closing = System.nanoTime();
        consumer.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(10));
        for (MessageView v : got) {
            final int i = Integer.parseInt(v.getProperties().get("index"));
            assertThat(body(v)).isEqualTo("m" + i);
            assertThat(v.getTag()).contains("T" + (i % 3));
            assertThat(v.getKeys()).containsExactly("k" + i);
            assertThat(v.getTopic()).isEqualTo(topic);
        }
    }

    @Test
    void shouldRedeliverAMessageWhoseConsumptionFailed() throws Exception {
        final String topic = unique("grpc-push-retry");
        final Producer producer = clients.producer(topic);
        final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        final List<Integer> deliveryAttempts = new CopyOnWriteArrayList<>();
        clients.track(PROVIDER.newPushConsumerBuilder().setClientConfiguration(clients.configuration())
                .setConsumerGroup(unique("grpc-push-g"))
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setMessageListener(v -> {
                    deliveryAttempts.add(v.getDeliveryAttempt());
                    final int seen = attempts.computeIfAbsent(body(v), k -> new AtomicInteger()).incrementAndGet();
                    return seen < 2 ? ConsumeResult.FAILURE : ConsumeResult.SUCCESS;
                }).build());
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("flaky")).build());
        await().atMost(Duration.ofSeconds(60)).until(() -> attempts.containsKey("flaky")
                && attempts.get("flaky").get() >= 2);
        assertThat(deliveryAttempts).startsWith(1, 2);
        // succeeded on the second attempt: not delivered again
        final long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10))
                .until(() -> System.nanoTime() >= end);
        assertThat(attempts.get("flaky").get()).isEqualTo(2);
    }

    @Test
    void shouldKeepAMessageInvisibleWhileItsListenerIsStillConsuming() throws Exception {
        final String topic = unique("grpc-push-renew");
        final String group = unique("grpc-push-g");
        final Producer producer = clients.producer(topic);
        final List<String> deliveries = new CopyOnWriteArrayList<>();
        final AtomicLong consumed = new AtomicLong();
        for (String name : List.of("a", "b")) {
            clients.track(PROVIDER.newPushConsumerBuilder().setClientConfiguration(clients.configuration())
                    .setConsumerGroup(group)
                    .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                    .setMessageListener(v -> {
                        deliveries.add(name + ":" + body(v) + ":" + v.getDeliveryAttempt());
                        // slower than the 10 s invisible time: the server renews it meanwhile
                        try {
                            Thread.sleep(12_000);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return ConsumeResult.FAILURE;
                        }
                        consumed.set(System.nanoTime());
                        return ConsumeResult.SUCCESS;
                    }).build());
        }
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("slow")).build());
        await().atMost(Duration.ofSeconds(30)).until(() -> consumed.get() != 0);
        // after the ack (made with the first receipt handle, though the server renewed it) nothing comes back
        // within another invisible time either
        final long end = consumed.get() + Duration.ofSeconds(11).toNanos();
        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(20))
                .until(() -> System.nanoTime() >= end);
        assertThat(deliveries).hasSize(1);
        assertThat(deliveries.get(0)).endsWith(":slow:1");
    }
}
