package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a brand-new consumer group of rocketmq-client-java starts (POP, server-side): as RocketMQ's proxy starts it
 * ({@code ConsumeInitMode.MAX}), at 0 while a queue still holds its first message, so everything sent before the
 * group's first receive is delivered; on a queue whose first messages retention removed, at its last message. A group
 * that acknowledged messages goes on after them.
 */
// The shortest long-polling timeout (5 s by default): closing an idle push consumer waits for its parked receive, and
// the push test closes one. The simple consumers name their own wait.
@WithBroker(settings = "grpc.long-polling-timeout-ms=1000")
class GrpcNewGroupIT {
    private static final Duration DEADLINE = Duration.ofSeconds(40);
    /** A window in which nothing more may arrive: the deliveries counted must stay as they are. */
    private static final Duration QUIET = Duration.ofMillis(500);
    private static final int SENT = 10;
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

    private static List<String> send(final Producer producer, final String topic, final String prefix,
                                     final int count) throws Exception {
        final List<String> bodies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final String body = prefix + "-" + i;
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8(body)).build());
            bodies.add(body);
        }
        return bodies;
    }

    private static List<String> bodies(final List<MessageView> views) {
        return views.stream().map(GrpcClients::body).toList();
    }

    @Test
    void shouldDeliverEverythingSentBeforeANewSimpleConsumerGroupFirstReceived() throws Exception {
        final String topic = unique("grpc-new");
        final List<String> sent = send(clients.producer(topic), topic, "before", SENT);
        final SimpleConsumer consumer = clients.simpleConsumer(unique("grpc-new-g"), topic);
        final List<MessageView> got = GrpcClients.drain(consumer, SENT, DEADLINE);
        assertThat(consumer.receive(32, Duration.ofSeconds(30))).isEmpty();
        assertThat(bodies(got)).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void shouldDeliverEverythingSentBeforeANewPushConsumerGroupStarted() throws Exception {
        final String topic = unique("grpc-new-push");
        final List<String> sent = send(clients.producer(topic), topic, "before", SENT);
        final List<String> got = new CopyOnWriteArrayList<>();
        clients.track(PROVIDER.newPushConsumerBuilder().setClientConfiguration(clients.configuration())
                .setConsumerGroup(unique("grpc-new-push-g"))
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setMessageListener(v -> {
                    got.add(body(v));
                    return ConsumeResult.SUCCESS;
                }).build());
        await().atMost(DEADLINE).until(() -> got.size() >= SENT);
        await("nothing more arrives").during(QUIET).atMost(QUIET.multipliedBy(3))
                .until(() -> got.size() == SENT); // no duplicates
        assertThat(got).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void shouldGoOnAfterWhatTheGroupAcknowledged() throws Exception {
        final String topic = unique("grpc-resume");
        final String group = unique("grpc-resume-g");
        final Producer producer = clients.producer(topic);
        final List<String> first = send(producer, topic, "first", SENT);
        final SimpleConsumer consumer = clients.simpleConsumer(group, topic);
        assertThat(bodies(GrpcClients.drain(consumer, SENT, DEADLINE))).containsExactlyInAnyOrderElementsOf(first);
        consumer.close();

        final List<String> later = send(producer, topic, "later", 5);
        final SimpleConsumer again = clients.simpleConsumer(group, topic);
        final List<MessageView> got = GrpcClients.drain(again, later.size(), DEADLINE);
        assertThat(again.receive(32, Duration.ofSeconds(30))).isEmpty();
        assertThat(bodies(got)).containsExactlyInAnyOrderElementsOf(later);
    }

    @Test
    void shouldStartANewGroupAtTheLastMessageOfAQueueWhoseFirstMessagesWereRemoved(@TempDir final Path own)
            throws Exception {
        // 64 KiB segments and no retention time: every segment but the newest is deleted within seconds.
        try (RunningBroker trimming = RunningBroker.builder().dataDir(own.resolve("data"))
                .set("store.segment-size", "64k")
                .set("store.max-message-size", "16k").set("store.retention-hours", "0")
                .set("grpc.auto-create-queues", "1").set("mqtt.enabled", "false").set("amqp.enabled", "false")
                .set("http-cloudevents.enabled", "false").start();
             GrpcClients trimmed = new GrpcClients(trimming)) {
            final String topic = unique("grpc-trimmed");
            final Producer producer = trimmed.producer(topic);
            final Random random = new Random(42);
            final int before = 60;
            for (int i = 0; i < before; i++) {
                final byte[] padding = new byte[4096];
                random.nextBytes(padding); // the client compresses large bodies: this one stays as large
                producer.send(PROVIDER.newMessageBuilder().setTopic(topic)
                        .setBody(utf8("before-" + i + " " + Base64.getEncoder().encodeToString(padding))).build());
            }
            final DefaultMQAdminExt admin = RocketMqAdmin.started("127.0.0.1:" + trimming.setting("remoting.port"));
            try {
                final MessageQueue queue = admin.examineTopicRouteInfo(topic).getQueueDatas().stream()
                        .map(d -> new MessageQueue(topic, d.getBrokerName(), 0)).findFirst().orElseThrow();
                await().atMost(Duration.ofSeconds(60)).until(() -> admin.minOffset(queue) > 0);
                assertThat(admin.maxOffset(queue)).isEqualTo(before);
            } finally {
                admin.shutdown();
            }
            final SimpleConsumer consumer = trimmed.simpleConsumer(trimmed.configuration(), unique("grpc-g"), topic);
            final List<String> got = new ArrayList<>();
            GrpcClients.drain(consumer, 1, DEADLINE).forEach(v -> got.add(body(v).split(" ")[0]));
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("after")).build());
            GrpcClients.drain(consumer, 1, DEADLINE).forEach(v -> got.add(body(v).split(" ")[0]));
            assertThat(consumer.receive(32, Duration.ofSeconds(30))).isEmpty();
            assertThat(got).containsExactly("before-" + (before - 1), "after");
        }
    }
}
