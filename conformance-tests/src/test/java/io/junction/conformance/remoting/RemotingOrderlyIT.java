package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code MessageListenerOrderly} push consumers of the 5.3.x client started before the producer sends, as Apache
 * RocketMQ's own end-to-end suite runs them (global order: one queue; partition order: by selector), with the client's
 * default consume-from-where. An orderly consumer fixes its offset again on its first pull after the broker locked
 * the queue for it; when that pull comes after the sends (the 4.9.3 client's does, a second later, when its periodic
 * lock marks the queue locked), the group has still no offset while the queue already holds the messages, and the
 * broker's answer decides whether it starts at the first one. Some tests suspend the consumer until after the sends to
 * make that order certain.
 */
@WithBroker
class RemotingOrderlyIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    /** A window in which nothing more may arrive: the deliveries counted must stay as they are. */
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

    /** A topic that exists (created by a first message tagged otherwise) and its queues. */
    private static String createTopic() throws Exception {
        final String topic = Names.unique("t");
        producer.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8)));
        return topic;
    }

    /** An orderly consumer of tag O recording, per queue, the numbers it receives in the order it receives them. */
    private static DefaultMQPushConsumer orderly(final String topic, final Map<Integer, List<Integer>> perQueue)
            throws Exception {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(Names.unique("orderly"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.subscribe(topic, "O");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                perQueue.computeIfAbsent(m.getQueueId(), q -> new CopyOnWriteArrayList<>())
                        .add(Integer.parseInt(new String(m.getBody(), StandardCharsets.UTF_8)));
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        return consumer;
    }

    private static int total(final Map<Integer, List<Integer>> perQueue) {
        return perQueue.values().stream().mapToInt(List::size).sum();
    }

    private static void sendGlobal(final DefaultMQProducer to, final String topic, final int count) throws Exception {
        for (int i = 0; i < count; i++) {
            to.send(new Message(topic, "O", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get(0), null);
        }
    }

    /** Sends {@code count} messages, message i to queue i modulo the queue count; returns what each queue got. */
    private static Map<Integer, List<Integer>> sendPartitioned(final String topic, final int count)
            throws Exception {
        final Map<Integer, List<Integer>> sent = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            final SendResult r = producer.send(new Message(topic, "O",
                    Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), i);
            sent.computeIfAbsent(r.getMessageQueue().getQueueId(), q -> new ArrayList<>()).add(i);
        }
        return sent;
    }

    @Test
    void shouldConsumeAGlobalOrderWhenTheProducerStartsAfterTheConsumer() throws Exception {
        final String topic = createTopic();
        final Map<Integer, List<Integer>> perQueue = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer consumer = orderly(topic, perQueue);
        consumer.start();
        final DefaultMQProducer late = Clients.producer(broker);
        try {
            sendGlobal(late, topic, 100);
            await().atMost(DEADLINE).until(() -> total(perQueue) >= 100);
            assertThat(perQueue).containsOnlyKeys(0);
            assertThat(perQueue.get(0)).containsExactlyElementsOf(IntStream.range(0, 100).boxed().toList());
        } finally {
            // The test's last use of both (the group is its own): no need to wait for the clients' idle last step.
            RemotingClientShutdown.inBackground(late::shutdown);
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    @Test
    void shouldConsumeAGlobalOrderSentBeforeTheConsumersFirstLockedPull() throws Exception {
        final String topic = createTopic();
        final Map<Integer, List<Integer>> perQueue = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer consumer = orderly(topic, perQueue);
        consumer.suspend();
        consumer.start();
        try {
            sendGlobal(producer, topic, 100);
            consumer.resume();
            await().atMost(DEADLINE).until(() -> total(perQueue) >= 100);
            assertThat(perQueue).containsOnlyKeys(0);
            assertThat(perQueue.get(0)).containsExactlyElementsOf(IntStream.range(0, 100).boxed().toList());
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldConsumeEveryPartitionInOrderSentBeforeTheConsumersFirstLockedPull() throws Exception {
        final String topic = createTopic();
        final Map<Integer, List<Integer>> perQueue = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer consumer = orderly(topic, perQueue);
        consumer.suspend();
        consumer.start();
        try {
            final Map<Integer, List<Integer>> sent = sendPartitioned(topic, 240);
            consumer.resume();
            await().atMost(DEADLINE).until(() -> total(perQueue) >= 240);
            await("nothing more arrives").during(QUIET).atMost(QUIET.multipliedBy(3))
                    .until(() -> total(perQueue) == 240);
            assertThat(sent).hasSizeGreaterThan(1);
            assertThat(new TreeMap<>(perQueue)).isEqualTo(sent);
        } finally {
            consumer.shutdown();
        }
    }
}
