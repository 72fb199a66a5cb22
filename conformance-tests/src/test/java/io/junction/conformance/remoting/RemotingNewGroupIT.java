package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where a brand-new consumer group of the 5.3.x client starts: with the client's default consume-from-where
 * ({@code CONSUME_FROM_LAST_OFFSET}), a group that never committed an offset on a queue that still holds its first
 * message starts at 0, as RocketMQ's broker answers {@code QUERY_CONSUMER_OFFSET}, so it gets what was sent before it
 * first started (a Spring Boot application's listener started after its own sends); a group that committed offsets
 * resumes from them.
 */
@WithBroker
class RemotingNewGroupIT {
    private static final Duration DEADLINE = Duration.ofSeconds(40);
    /** A window in which nothing more may arrive: the deliveries counted must stay as they are. */
    private static final Duration QUIET = Duration.ofMillis(500);
    private static final int SENT = 10;
    private static RunningBroker broker;
    private static DefaultMQProducer producer;
    private static DefaultMQAdminExt admin;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        producer = Clients.producer(broker);
        admin = RocketMqAdmin.started(broker.nameServer());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.shutdown();
        }
        if (producer != null) {
            producer.shutdown();
        }
    }

    /** A push consumer with the client's default consume-from-where (the last offset). */
    private static DefaultMQPushConsumer push(final String group) {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setPersistConsumerOffsetInterval(1000);
        return consumer;
    }

    /** Sends {@code count} messages {@code prefix-i} to a topic the producer creates with the first of them. */
    private static List<String> send(final String topic, final String prefix, final int count) throws Exception {
        final List<String> bodies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final String body = prefix + "-" + i;
            producer.send(new Message(topic, "N", body.getBytes(StandardCharsets.UTF_8)));
            bodies.add(body);
        }
        return bodies;
    }

    private static String body(final MessageExt m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeliverEverythingSentBeforeANewConcurrentPushGroupFirstStarted() throws Exception {
        final String topic = Names.unique("t");
        final List<String> sent = send(topic, "before", SENT);
        final List<String> received = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(Names.unique("new-push"));
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> received.add(body(m)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            await().atMost(DEADLINE).until(() -> received.size() >= SENT);
            await("nothing more arrives").during(QUIET).atMost(QUIET.multipliedBy(3))
                    .until(() -> received.size() == SENT);
            assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldDeliverEverythingSentBeforeANewOrderlyPushGroupFirstStartedInOrder() throws Exception {
        final String topic = Names.unique("t");
        for (int i = 0; i < SENT; i++) {
            producer.send(new Message(topic, "N", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get(0), null);
        }
        final List<Integer> received = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(Names.unique("new-orderly"));
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            msgs.forEach(m -> received.add(Integer.parseInt(body(m))));
            return ConsumeOrderlyStatus.SUCCESS;
        });
        consumer.start();
        try {
            await().atMost(DEADLINE).until(() -> received.size() >= SENT);
            assertThat(received).containsExactlyElementsOf(IntStream.range(0, SENT).boxed().toList());
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldDeliverEverythingSentBeforeANewLitePullGroupFirstStarted() throws Exception {
        final String topic = Names.unique("t");
        final List<String> sent = send(topic, "before", SENT);
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(Names.unique("new-lite"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final List<String> received = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (received.size() < SENT && System.nanoTime() < end) {
                consumer.poll(500).forEach(m -> received.add(body(m)));
            }
            consumer.poll(500).forEach(m -> received.add(body(m)));
            assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldResumeAGroupFromTheOffsetsItCommitted() throws Exception {
        final String topic = Names.unique("t");
        final String group = Names.unique("resume");
        final List<String> first = send(topic, "first", SENT);
        final List<String> firstRun = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(group);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> firstRun.add(body(m)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            await().atMost(DEADLINE).until(() -> firstRun.size() >= SENT);
            // Committed on the broker: every queue's consumer offset is at its end.
            await().atMost(DEADLINE).untilAsserted(() -> {
                final ConsumeStats stats = admin.examineConsumeStats(group);
                final Map<Integer, OffsetWrapper> byQueue = new ConcurrentHashMap<>();
                stats.getOffsetTable().forEach((mq, w) -> {
                    if (mq.getTopic().equals(topic)) {
                        byQueue.put(mq.getQueueId(), w);
                    }
                });
                assertThat(byQueue).isNotEmpty().allSatisfy((q, w) ->
                        assertThat(w.getConsumerOffset()).isEqualTo(w.getBrokerOffset()));
                assertThat(byQueue.values().stream().mapToLong(OffsetWrapper::getBrokerOffset).sum())
                        .isEqualTo(SENT);
            });
        } finally {
            consumer.shutdown();
        }
        assertThat(firstRun).containsExactlyInAnyOrderElementsOf(first);

        final List<String> later = send(topic, "later", 5);
        final List<String> secondRun = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer again = push(group);
        again.subscribe(topic, "*");
        again.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> secondRun.add(body(m)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        again.start();
        try {
            await().atMost(DEADLINE).until(() -> secondRun.size() >= later.size());
            // what the group consumed before must not come again
            await("nothing more arrives").during(QUIET.multipliedBy(2)).atMost(QUIET.multipliedBy(3))
                    .until(() -> secondRun.size() == later.size());
            assertThat(secondRun).containsExactlyInAnyOrderElementsOf(later);
        } finally {
            again.shutdown();
        }
    }
}
