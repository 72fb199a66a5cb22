package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Push and lite-pull consumers against the broker jar: delivery, retry, order, filters, delays. */
@WithBroker
class RemotingConsumerIT {
    private static final Duration DEADLINE = Duration.ofSeconds(40);
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

    private static DefaultMQPushConsumer push(final String group) {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        return consumer;
    }

    private static String createTopic() throws Exception {
        final String topic = Names.unique("t");
        producer.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8)));
        return topic;
    }

    private static List<String> bodies(final Collection<MessageExt> messages) {
        return messages.stream().map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void shouldDeliverExactlyWhatWasSentToAConcurrentPushConsumer() throws Exception {
        final String topic = createTopic();
        final Map<String, MessageExt> received = new ConcurrentHashMap<>();
        final AtomicInteger deliveries = new AtomicInteger();
        final DefaultMQPushConsumer consumer = push(Names.unique("cg"));
        consumer.subscribe(topic, "T");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> received.put(m.getMsgId(), m));
            deliveries.addAndGet(msgs.size());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            final List<String> sent = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                final Message m = new Message(topic, "T", "k" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("n", Integer.toString(i));
                sent.add(producer.send(m).getMsgId());
            }
            await().atMost(DEADLINE).until(() -> received.size() >= 50);
            await("nothing more arrives").during(QUIET).atMost(QUIET.multipliedBy(3))
                    .until(() -> deliveries.get() == 50);
            assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(sent);
            assertThat(deliveries.get()).isEqualTo(50);
            final MessageExt one = received.get(sent.get(7));
            assertThat(one.getUserProperty("n")).isEqualTo("7");
            assertThat(one.getKeys()).isEqualTo("k7");
            assertThat(one.getTopic()).isEqualTo(topic);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldRedeliverAfterReconsumeLaterWithReconsumeTimesIncremented() throws Exception {
        final String topic = createTopic();
        final List<Integer> attempts = new CopyOnWriteArrayList<>();
        // The topic each delivery names (a retry must name the original topic, not %RETRY%), recorded in the listener
        // and asserted on the test thread: the client swallows what a listener throws.
        final List<String> topics = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(Names.unique("retry"));
        consumer.subscribe(topic, "R");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            final MessageExt m = msgs.get(0);
            attempts.add(m.getReconsumeTimes());
            topics.add(m.getTopic());
            return m.getReconsumeTimes() == 0 ? ConsumeConcurrentlyStatus.RECONSUME_LATER
                    : ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            producer.send(new Message(topic, "R", "again".getBytes(StandardCharsets.UTF_8)));
            // the broker's back-off (delay level 3 + reconsume times: 10 s) before the second delivery
            await().atMost(Duration.ofSeconds(45)).until(() -> attempts.size() >= 2);
            assertThat(attempts).startsWith(0, 1);
            assertThat(topics).hasSameSizeAs(attempts).containsOnly(topic);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldFilterByTagAndBySql92() throws Exception {
        final String topic = createTopic();
        final List<MessageExt> byTag = new CopyOnWriteArrayList<>();
        final List<MessageExt> bySql = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer tags = push(Names.unique("tag"));
        tags.subscribe(topic, "A || C");
        tags.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            byTag.addAll(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        final DefaultMQPushConsumer sql = push(Names.unique("sql"));
        sql.subscribe(topic, MessageSelector.bySql("price > 10 AND TAGS = 'B'"));
        sql.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            bySql.addAll(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        tags.start();
        sql.start();
        try {
            int i = 0;
            for (String tag : new String[] {"A", "B", "C", "B", "D"}) {
                final Message m = new Message(topic, tag, (tag + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("price", Integer.toString(i++ * 10));
                producer.send(m);
            }
            await().atMost(DEADLINE).until(() -> byTag.size() >= 2 && bySql.size() >= 1);
            // a filtered-out message must not arrive
            await("nothing more arrives").during(QUIET.multipliedBy(2)).atMost(QUIET.multipliedBy(3))
                    .until(() -> byTag.size() == 2 && bySql.size() == 1);
            assertThat(bodies(byTag)).containsExactlyInAnyOrder("A0", "C2");
            assertThat(bodies(bySql)).containsExactly("B3");
        } finally {
            tags.shutdown();
            sql.shutdown();
        }
    }

    @Test
    void shouldConsumeEachQueueInOrderWithAnOrderlyListener() throws Exception {
        final String topic = createTopic();
        final Map<Integer, List<Integer>> perQueue = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer consumer = push(Names.unique("orderly"));
        consumer.subscribe(topic, "O");
        consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                perQueue.computeIfAbsent(m.getQueueId(), q -> new CopyOnWriteArrayList<>())
                        .add(Integer.parseInt(new String(m.getBody(), StandardCharsets.UTF_8)));
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        consumer.start();
        try {
            for (int i = 0; i < 40; i++) {
                producer.send(new Message(topic, "O", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                        (mqs, msg, arg) -> mqs.get((Integer) arg % 2), i);
            }
            await().atMost(DEADLINE).until(() -> perQueue.values().stream().mapToInt(List::size).sum() >= 40);
            assertThat(perQueue.get(0)).isSorted().hasSize(20);
            assertThat(perQueue.get(1)).isSorted().hasSize(20);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldAssignAndSeekWithALitePullConsumer() throws Exception {
        final String topic = createTopic();
        final SendResult first = producer.send(new Message(topic, "x0".getBytes(StandardCharsets.UTF_8)),
                (mqs, msg, arg) -> mqs.get(0), null);
        for (int i = 1; i < 5; i++) {
            producer.send(new Message(topic, ("x" + i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get(0), null);
        }
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(Names.unique("lite"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.start();
        try {
            final MessageQueue mq = first.getMessageQueue();
            consumer.assign(List.of(mq));
            consumer.seek(mq, first.getQueueOffset() + 2);
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (got.size() < 3 && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(bodies(got)).containsExactly("x2", "x3", "x4");
            assertThat(consumer.committed(mq)).isGreaterThanOrEqualTo(-1);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldDeliverDelayedMessagesAfterTheirDelayWithTheDelayTheyWereSentWith() throws Exception {
        final String topic = createTopic();
        final Map<String, MessageExt> received = new ConcurrentHashMap<>();
        final Map<String, Long> arrivals = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer consumer = push(Names.unique("delay"));
        consumer.subscribe(topic, "D");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                final String body = new String(m.getBody(), StandardCharsets.UTF_8);
                received.put(body, m);
                arrivals.put(body, System.currentTimeMillis());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            final Message level = new Message(topic, "D", "level".getBytes(StandardCharsets.UTF_8));
            level.setDelayTimeLevel(2); // 5 s
            final long sent = System.currentTimeMillis();
            producer.send(level);
            final Message timed = new Message(topic, "D", "timed".getBytes(StandardCharsets.UTF_8));
            timed.setDeliverTimeMs(sent + 3000);
            producer.send(timed);
            final Message relative = new Message(topic, "D", "relative".getBytes(StandardCharsets.UTF_8));
            relative.setDelayTimeSec(2);
            producer.send(relative);
            await().atMost(DEADLINE).until(() -> received.size() >= 3);
            assertThat(arrivals.get("relative") - sent).isGreaterThanOrEqualTo(1500);
            assertThat(arrivals.get("timed") - sent).isGreaterThanOrEqualTo(2500);
            assertThat(arrivals.get("level") - sent).isGreaterThanOrEqualTo(4500);
            // Delivered as RocketMQ delivers them: each keeps the delay it was sent with.
            assertThat(received.get("level").getDelayTimeLevel()).isEqualTo(2);
            assertThat(received.get("timed").getDeliverTimeMs()).isEqualTo(sent + 3000);
            assertThat(received.get("timed").getDelayTimeLevel()).isZero();
            assertThat(received.get("relative").getDelayTimeSec()).isEqualTo(2);
            assertThat(received.values()).allSatisfy(m -> {
                assertThat(m.getTopic()).isEqualTo(topic);
                assertThat(m.getProperties()).doesNotContainKeys("REAL_TOPIC", "REAL_QID");
            });
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldDeadLetterAMessageThatExhaustedItsReconsumeTimes() throws Exception {
        final String topic = createTopic();
        final String group = Names.unique("dlq");
        final List<Integer> attempts = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(group);
        consumer.setMaxReconsumeTimes(1);
        consumer.subscribe(topic, "F");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> attempts.add(m.getReconsumeTimes()));
            // Back in 1 s (delay level 1) instead of the broker's 10 s: the subject here is the dead letter, the
            // broker's own back-off is shouldRedeliverAfterReconsumeLaterWithReconsumeTimesIncremented's.
            ctx.setDelayLevelWhenNextConsume(1);
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        });
        consumer.start();
        try {
            producer.send(new Message(topic, "F", "poison".getBytes(StandardCharsets.UTF_8)));
            await().atMost(Duration.ofSeconds(45)).until(() -> attempts.size() >= 2);
            final List<MessageExt> dead = Clients.drain(broker, "%DLQ%" + group, 1, DEADLINE);
            assertThat(bodies(dead)).containsExactly("poison");
            assertThat(dead.get(0).getProperty("RETRY_TOPIC")).isEqualTo(topic);
            // a dead-lettered message is not retried again
            await("nothing more arrives").during(QUIET.multipliedBy(2)).atMost(QUIET.multipliedBy(3))
                    .until(() -> attempts.size() == 2);
            assertThat(attempts).containsExactly(0, 1);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldStartANewGroupAtTheQueueStartOrAtTheTimestampItAskedFor() throws Exception {
        final String topic = createTopic();
        producer.send(new Message(topic, "S", "old".getBytes(StandardCharsets.UTF_8)));
        Thread.sleep(2100); // store times are compared in seconds
        final long since = System.currentTimeMillis();
        Thread.sleep(1100); // "middle" is stored a full second after the timestamp asked for
        producer.send(new Message(topic, "S", "middle".getBytes(StandardCharsets.UTF_8)));

        final List<MessageExt> fromLast = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer last = push(Names.unique("last"));
        last.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        last.subscribe(topic, "S");
        last.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            fromLast.addAll(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        final List<MessageExt> fromTime = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer timed = push(Names.unique("time"));
        timed.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_TIMESTAMP);
        timed.setConsumeTimestamp(org.apache.rocketmq.common.UtilAll.timeMillisToHumanString3(since));
        timed.subscribe(topic, "S");
        timed.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            fromTime.addAll(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        last.start();
        timed.start();
        try {
            final int queues = producer.fetchPublishMessageQueues(topic).size();
            await().atMost(DEADLINE).until(() -> Clients.heldQueues(last, topic) == queues
                    && Clients.heldQueues(timed, topic) == queues); // both rebalanced and positioned
            producer.send(new Message(topic, "S", "new".getBytes(StandardCharsets.UTF_8)));
            await().atMost(DEADLINE).until(() -> fromLast.size() >= 3 && fromTime.size() >= 2);
            // no duplicate, nothing from before the timestamp
            await("nothing more arrives").during(QUIET).atMost(QUIET.multipliedBy(3))
                    .until(() -> fromLast.size() == 3 && fromTime.size() == 2);
            // The queues still hold their first messages: a new group starts there, as on RocketMQ's broker, even
            // when it asks for the last offset (that applies once retention removed the first ones).
            assertThat(bodies(fromLast)).containsExactlyInAnyOrder("old", "middle", "new");
            // A timestamp is honoured (RocketMQ's broker would start this group at the queues' start too).
            assertThat(bodies(fromTime)).containsExactlyInAnyOrder("middle", "new");
        } finally {
            // Their own groups, the test's last use of them: no need to wait for the clients' idle last step.
            RemotingClientShutdown.inBackground(last::shutdown);
            RemotingClientShutdown.inBackground(timed::shutdown);
        }
    }

    @Test
    void shouldWakeAnIdleLongPollingConsumerWithinMilliseconds() throws Exception {
        final String topic = createTopic();
        final List<Long> latencies = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(Names.unique("lp"));
        consumer.subscribe(topic, "L");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> latencies.add(System.currentTimeMillis()
                    - Long.parseLong(new String(m.getBody(), StandardCharsets.UTF_8))));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            // The subject is an idle consumer: its pulls park on the broker, which no client call shows
            Thread.sleep(3000);
            for (int i = 0; i < 5; i++) {
                producer.send(new Message(topic, "L",
                        Long.toString(System.currentTimeMillis()).getBytes(StandardCharsets.UTF_8)));
                Thread.sleep(200); // paces the sends: each one meets a pull already parked
            }
            await().atMost(DEADLINE).until(() -> latencies.size() >= 5);
            System.out.println("send-to-listener latencies (ms): " + latencies);
            assertThat(latencies).allSatisfy(l -> assertThat(l).isLessThan(1000L));
        } finally {
            consumer.shutdown();
        }
    }
}
