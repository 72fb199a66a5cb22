package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The 5.x Remoting push consumer in POP mode (client rebalance off): pop, ack, change invisible time. */
@WithBroker
class RemotingPopIT {
    private static final Duration DEADLINE = Duration.ofSeconds(40);
    /** A window in which nothing more may arrive: what was received must stay as it is. */
    private static final Duration QUIET = Duration.ofMillis(500);
    private static RunningBroker broker;
    private static DefaultMQProducer producer;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        producer = Clients.producer(broker);
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.shutdown();
        }
    }

    @Test
    void shouldPopAckAndRedeliverWhatTheListenerGaveBack() throws Exception {
        final String topic = Names.unique("pop");
        producer.createTopic("TBW102", topic, 4, Map.of());
        final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        final List<Integer> failedAttempts = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(Names.unique("popg"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setClientRebalance(false);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (var m : msgs) {
                final String body = new String(m.getBody(), StandardCharsets.UTF_8);
                deliveries.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
                if (body.equals("fail-once")) {
                    failedAttempts.add(m.getReconsumeTimes());
                    if (m.getReconsumeTimes() == 0) {
                        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                    }
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            for (int i = 0; i < 20; i++) {
                producer.send(new Message(topic, ("p" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.send(new Message(topic, "fail-once".getBytes(StandardCharsets.UTF_8)));
            await().atMost(DEADLINE).until(() -> deliveries.size() >= 21);
            await().atMost(DEADLINE).until(() -> failedAttempts.size() >= 2);
            assertThat(failedAttempts.get(1)).isGreaterThanOrEqualTo(1);
            await("no redelivery").during(QUIET.multipliedBy(2)).atMost(QUIET.multipliedBy(3)).untilAsserted(() ->
                    deliveries.forEach((body, n) -> {
                        if (!body.equals("fail-once")) {
                            assertThat(n.get()).as("deliveries of %s (acked, never redelivered)", body).isEqualTo(1);
                        }
                    }));
        } finally {
            // Its own group, the test's last use of it: no need to wait for the client's idle last step.
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }
}
