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
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Committed offsets and messages survive a broker restart: a group resumes where it stopped. */
@WithBroker
class RemotingRestartIT {
    private static final Duration DEADLINE = Duration.ofSeconds(40);
    /** A window in which nothing more may arrive: the deliveries counted must stay as they are. */
    private static final Duration QUIET = Duration.ofMillis(500);
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static DefaultMQPushConsumer consumer(final String group, final String topic, final List<String> sink)
            throws Exception {
        final DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(broker.nameServer());
        c.setInstanceName(Names.unique("c"));
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> sink.add(new String(m.getBody(), StandardCharsets.UTF_8)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        return c;
    }

    private static void send(final String topic, final String... bodies) throws Exception {
        final DefaultMQProducer producer = Clients.producer(broker);
        try {
            for (String b : bodies) {
                producer.send(new Message(topic, b.getBytes(StandardCharsets.UTF_8)));
            }
        } finally {
            // A one-off producer: no need to wait for the client's idle last step.
            RemotingClientShutdown.inBackground(producer::shutdown);
        }
    }

    @Test
    void shouldResumeFromTheCommittedOffsetsAfterARestart() throws Exception {
        final String topic = Names.unique("restart");
        final String group = Names.unique("rg");
        final DefaultMQProducer creator = Clients.producer(broker);
        creator.createTopic("TBW102", topic, 2, Map.of());
        creator.shutdown();
        send(topic, "a1", "a2", "a3", "a4", "a5");

        final List<String> before = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer first = consumer(group, topic, before);
        await().atMost(DEADLINE).until(() -> before.size() >= 5);
        first.shutdown(); // persists its offsets

        broker.restart();
        send(topic, "b1", "b2", "b3");

        final List<String> after = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer second = consumer(group, topic, after);
        try {
            await().atMost(DEADLINE).until(() -> after.size() >= 3);
            // nothing consumed before the restart may come again
            await("nothing more arrives").during(QUIET.multipliedBy(2)).atMost(QUIET.multipliedBy(3))
                    .until(() -> after.size() == 3);
            assertThat(before).containsExactlyInAnyOrder("a1", "a2", "a3", "a4", "a5");
            assertThat(after).containsExactlyInAnyOrder("b1", "b2", "b3");
        } finally {
            second.shutdown();
        }
    }
}
