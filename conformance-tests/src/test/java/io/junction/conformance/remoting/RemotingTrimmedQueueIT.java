package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A brand-new group of the 5.3.x client on a queue whose first messages retention removed: RocketMQ's broker then
 * answers "no offset", and the client's consume-from-where decides: the last offset starts at the queue's end, the
 * first offset at its oldest retained message. The broker runs with 64 KiB segments and no retention time, so every
 * segment but the newest is deleted within seconds; topics get one queue.
 */
@WithBroker(settings = {
        "store.segment-size=64k",
        "store.max-message-size=16k",
        "store.retention-hours=0",
        "store.default-queue-count=1",
        "mqtt.enabled=false",
        "amqp.enabled=false",
        "http-cloudevents.enabled=false"})
class RemotingTrimmedQueueIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    /** A window in which nothing more may arrive: what was received must stay as it is. */
    private static final Duration QUIET = Duration.ofMillis(500);
    /** Enough 4 KiB messages for several 64 KiB segments. */
    private static final int BEFORE = 60;
    private static RunningBroker broker;
    private static DefaultMQProducer producer;
    private static DefaultMQAdminExt admin;
    private static String topic;
    private static MessageQueue queue;
    private static long trimmedTo;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        producer = new DefaultMQProducer(Names.unique("pg"));
        producer.setNamesrvAddr(broker.nameServer());
        producer.setInstanceName(Names.unique("p"));
        producer.setDefaultTopicQueueNums(1); // the queues the broker gives a topic it creates on a first send
        producer.start();
        admin = RocketMqAdmin.started(broker.nameServer());
        topic = Names.unique("trimmed");
        final Random random = new Random(42);
        for (int i = 0; i < BEFORE; i++) {
            final byte[] padding = new byte[4096];
            random.nextBytes(padding); // the client compresses bodies above 4 KiB: this one stays as large
            producer.send(new Message(topic, "T", ("before-" + i + " " + Base64.getEncoder().encodeToString(padding))
                    .getBytes(StandardCharsets.UTF_8)));
        }
        queue = producer.fetchPublishMessageQueues(topic).get(0);
        await().atMost(DEADLINE).until(() -> admin.minOffset(queue) > 0);
        trimmedTo = admin.minOffset(queue);
        assertThat(admin.maxOffset(queue)).isEqualTo(BEFORE);
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

    private static DefaultMQPushConsumer push(final ConsumeFromWhere from, final List<String> received) {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(Names.unique("g"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(from);
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> received.add(new String(m.getBody(), StandardCharsets.UTF_8).split(" ")[0]));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        return consumer;
    }

    /** Sends a message tagged {@code body} every 200 ms until the consumer received one; returns what was sent. */
    private static List<String> sendUntilOneArrives(final String prefix, final List<String> received)
            throws Exception {
        final List<String> sent = new CopyOnWriteArrayList<>();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(200)).until(() -> {
            final String body = prefix + "-" + sent.size();
            producer.send(new Message(topic, "T", body.getBytes(StandardCharsets.UTF_8)));
            sent.add(body);
            return received.stream().anyMatch(b -> b.startsWith(prefix + "-"));
        });
        return sent;
    }

    @Test
    void shouldStartANewGroupAskingForTheLastOffsetAtTheQueuesEnd() throws Exception {
        final List<String> received = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET, received);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final List<String> after = sendUntilOneArrives("last", received);
            await().atMost(DEADLINE).until(() -> received.contains(after.get(after.size() - 1)));
            await("no trimmed message or duplicate").during(QUIET).atMost(QUIET.multipliedBy(3))
                    .untilAsserted(() -> assertThat(received).noneMatch(b -> b.startsWith("before-"))
                            .doesNotHaveDuplicates());
            assertThat(after).containsAll(received);
        } finally {
            // Its own group, the test's last use of it: no need to wait for the client's idle last step.
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    @Test
    void shouldStartANewGroupAskingForTheFirstOffsetAtTheOldestRetainedMessage() throws Exception {
        final List<String> received = new CopyOnWriteArrayList<>();
        final DefaultMQPushConsumer consumer = push(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET, received);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            await().atMost(DEADLINE).until(() -> received.contains("before-" + (BEFORE - 1)));
            await("no duplicate").during(QUIET).atMost(QUIET.multipliedBy(3)).untilAsserted(() ->
                    assertThat(received.stream().filter(b -> b.startsWith("before-"))).doesNotHaveDuplicates());
            final List<String> before = received.stream().filter(b -> b.startsWith("before-")).sorted(
                    (a, b) -> Integer.compare(number(a), number(b))).toList();
            assertThat(before).doesNotHaveDuplicates();
            // From the oldest message still retained (retention may have moved on since) to the last one sent.
            final int from = number(before.get(0));
            assertThat(from).isGreaterThanOrEqualTo((int) trimmedTo);
            assertThat(before).containsExactlyElementsOf(
                    IntStream.range(from, BEFORE).mapToObj(i -> "before-" + i).toList());
            assertThat((long) from).isLessThanOrEqualTo(admin.minOffset(queue));
        } finally {
            // Its own group, the test's last use of it: no need to wait for the client's idle last step.
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    private static int number(final String body) {
        return Integer.parseInt(body.substring(body.indexOf('-') + 1));
    }
}
