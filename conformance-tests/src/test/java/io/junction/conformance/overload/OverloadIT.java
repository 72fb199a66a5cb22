package io.junction.conformance.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.history.History;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Overload: ten times more producers than consumers, consumers that are slow on purpose, a subscriber that never
 * reads its socket, and many idle MQTT connections, against a broker with a 512 MiB heap. The broker must stay up
 * (no OutOfMemoryError), keep its heap bounded, keep serving, and lose nothing it acknowledged: after the load the
 * consumers speed up and the history checker must find every acknowledged message delivered.
 *
 * <p>CI runs a short version; the full one is {@code -Djunction.overload.seconds=60 -Djunction.overload.idle=10000}.
 */
class OverloadIT {
    private static final int SECONDS = Integer.getInteger("junction.overload.seconds", 15);
    private static final int IDLE = Integer.getInteger("junction.overload.idle", 1000);
    private static final int PRODUCERS_PER_PROTOCOL = 10;
    private static final int BODY = 1024;
    private static final Duration DRAIN_DEADLINE = Duration.ofMinutes(3);

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @TempDir
    Path dir;

    private final History history = new History();
    private final AtomicBoolean loading = new AtomicBoolean(true);
    private final AtomicLong sendErrors = new AtomicLong();
    /** Ids of messages delivered with another body than sent (recorded in listeners, asserted on the test thread). */
    private final java.util.Queue<String> altered = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Test
    void shouldStayUpBoundedAndLoseNothingUnderOverload() throws Exception {
        try (RunningBroker broker = RunningBroker.builder().dataDir(dir.resolve("data"))
                .jvmArgs("-Xmx512m", "-XX:+ExitOnOutOfMemoryError")
                .set("mqtt.max-inflight", "32")
                .start()) {
            final int mqttPort = Integer.parseInt(broker.setting("mqtt.port"));
            final String nameServer = broker.nameServer();
            final HeapSampler heap = new HeapSampler(broker);

            try (IdleMqttConnections idle = IdleMqttConnections.open(mqttPort, IDLE);
                 UnreadSubscriber stuck = UnreadSubscriber.open(mqttPort, "ovlm/#")) {
                assertThat(idle.connected()).as("idle connections accepted").isEqualTo(IDLE);
                heap.sample();

                final DefaultMQProducer producer = new DefaultMQProducer("ovl-producers");
                producer.setNamesrvAddr(nameServer);
                producer.setInstanceName("ovl-p");
                producer.setSendMsgTimeout(5000);
                producer.start();
                final AtomicInteger seq = new AtomicInteger();
                remotingSend(producer, seq); // creates the topic, so the consumer's first rebalance finds its queues

                // Consumers (2), slow while the load runs; then producers (20): 10 Remoting sync senders and 10
                // MQTT QoS 1 publishers.
                final DefaultMQPushConsumer remotingConsumer = slowRemotingConsumer(nameServer);
                final Mqtt5AsyncClient mqttConsumer = slowMqttConsumer(mqttPort);
                final List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < PRODUCERS_PER_PROTOCOL; i++) {
                    threads.add(started("ovl-r-" + i, () -> remotingSends(producer, seq)));
                    final int n = i;
                    threads.add(started("ovl-m-" + i, () -> mqttPublishes(mqttPort, n, seq)));
                }
                final long loadEnd = System.nanoTime() + Duration.ofSeconds(SECONDS).toNanos();
                while (System.nanoTime() < loadEnd) {
                    Thread.sleep(1000); // pacing: heap and liveness are sampled once a second while the load runs
                    heap.sample();
                    assertThat(broker.process().isAlive()).as("broker alive under load").isTrue();
                }
                loading.set(false);
                for (Thread t : threads) {
                    t.join(30_000);
                }
                producer.shutdown();
                final int acknowledged = history.check().acknowledged();

                // The consumers now run at full speed; everything acknowledged must arrive.
                await("every acknowledged message delivered").atMost(DRAIN_DEADLINE).pollInterval(Duration.ofSeconds(1))
                        .until(() -> {
                            heap.sample();
                            return history.check().lost().isEmpty();
                        });
                final History.Report report = history.check();
                System.out.printf("OVERLOAD: %d s, %d idle MQTT connections, %d producers / 2 consumers: "
                                + "%d acknowledged (%.0f/s), %d send errors (backpressure), heap max %d MiB of 512, "
                                + "history: %s%n", SECONDS, IDLE, 2 * PRODUCERS_PER_PROTOCOL, acknowledged,
                        acknowledged / (double) SECONDS, sendErrors.get(), heap.maxMiB(), report);
                assertThat(report.lost()).as("lost").isEmpty();
                assertThat(report.unexpected()).as("delivered but never sent").isEmpty();
                assertThat(altered).as("delivered with another body than sent").isEmpty();
                assertThat(acknowledged).as("the load did run").isGreaterThan(SECONDS * 50);

                remotingConsumer.shutdown();
                mqttConsumer.disconnect().join();
            }
            // Still serving, and never out of memory.
            assertThat(broker.process().isAlive()).isTrue();
            assertThat(broker.get("/health").statusCode()).isEqualTo(200);
            assertStillServes(broker);
            assertThat(broker.process().output()).doesNotContain("OutOfMemoryError");
        }
    }

    private static Thread started(final String name, final Runnable work) {
        final Thread t = new Thread(work, name);
        t.start();
        return t;
    }

    private void remotingSends(final DefaultMQProducer producer, final AtomicInteger seq) {
        while (loading.get()) {
            remotingSend(producer, seq);
        }
    }

    private void remotingSend(final DefaultMQProducer producer, final AtomicInteger seq) {
        final String id = "r-" + seq.incrementAndGet();
        try {
            if (producer.send(new Message("ovlr", "t", id, body(id))).getSendStatus() == SendStatus.SEND_OK) {
                history.acknowledged(id, null, 0);
            }
        } catch (Exception e) {
            sendErrors.incrementAndGet(); // refused or timed out: not acknowledged, the producer slows down
        }
    }

    private void mqttPublishes(final int port, final int n, final AtomicInteger seq) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier("ovl-pub-" + n)
                .serverHost("127.0.0.1").serverPort(port).buildBlocking();
        client.connect();
        try {
            while (loading.get()) {
                final String id = "m-" + seq.incrementAndGet();
                try {
                    client.publishWith().topic("ovlm/" + n).qos(MqttQos.AT_LEAST_ONCE).payload(body(id)).send();
                    history.acknowledged(id, null, 0); // send() returned: PUBACK with a success code
                } catch (Exception e) {
                    sendErrors.incrementAndGet();
                }
            }
        } finally {
            client.disconnect();
        }
    }

    private DefaultMQPushConsumer slowRemotingConsumer(final String nameServer) throws Exception {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("ovl-consumers");
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName("ovl-c");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeThreadMin(1);
        consumer.setConsumeThreadMax(1);
        consumer.subscribe("ovlr", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt m : messages) {
                slowDown();
                history.delivered(m.getKeys(), "remoting");
                checkBody(m.getKeys(), m.getBody());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        return consumer;
    }

    private Mqtt5AsyncClient slowMqttConsumer(final int port) {
        final Mqtt5AsyncClient client = MqttClient.builder().useMqttVersion5().identifier("ovl-sub")
                .serverHost("127.0.0.1").serverPort(port).buildAsync();
        client.connectWith().cleanStart(true).sessionExpiryInterval(600).send().join();
        client.subscribeWith().topicFilter("ovlm/#").qos(MqttQos.AT_LEAST_ONCE).callback(p -> {
            final String id = new String(p.getPayloadAsBytes(), 0, idLength(p.getPayloadAsBytes()),
                    StandardCharsets.US_ASCII);
            slowDown();
            history.delivered(id, "mqtt");
            checkBody(id, p.getPayloadAsBytes());
        }).send().join();
        return client;
    }

    /** While the load runs, a consumer takes 20 ms per message: far slower than ten producers. */
    private void slowDown() {
        if (loading.get()) {
            try {
                Thread.sleep(20); // deliberate slowness: the consumer lags behind the producers
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The id, a space, then filler up to 1 KiB: the consumer checks the whole body, not just the id. */
    private static byte[] body(final String id) {
        final byte[] b = new byte[BODY];
        final byte[] head = (id + " ").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, b, 0, head.length);
        for (int i = head.length; i < BODY; i++) {
            b[i] = (byte) ('a' + (i % 26));
        }
        return b;
    }

    private static int idLength(final byte[] body) {
        for (int i = 0; i < body.length; i++) {
            if (body[i] == ' ') {
                return i;
            }
        }
        return body.length;
    }

    /**
     * Records a delivered message whose body is not the one sent. Client libraries swallow what a listener throws, so
     * the check is recorded here and asserted on the test thread.
     */
    private void checkBody(final String id, final byte[] body) {
        if (!Arrays.equals(body, body(id))) {
            altered.add(id);
        }
    }

    private static void assertStillServes(final RunningBroker broker) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier("ovl-after")
                .serverHost("127.0.0.1").serverPort(Integer.parseInt(broker.setting("mqtt.port"))).buildBlocking();
        client.connect();
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = client.publishes(
                MqttGlobalPublishFilter.ALL)) {
            client.subscribeWith().topicFilter("ovlafter/x").qos(MqttQos.AT_LEAST_ONCE).send();
            client.publishWith().topic("ovlafter/x").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("still here".getBytes(StandardCharsets.UTF_8)).send();
            final var received = publishes.receive(10, TimeUnit.SECONDS);
            assertThat(received).as("a message after the overload").isPresent();
            assertThat(new String(received.get().getPayloadAsBytes(), StandardCharsets.UTF_8)).isEqualTo("still here");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            client.disconnect();
        }
    }

    /** The broker's used heap, from its own /metrics (Micrometer's JVM memory gauges). */
    private static final class HeapSampler {
        private final RunningBroker broker;
        private long max;

        HeapSampler(final RunningBroker broker) {
            this.broker = broker;
        }

        void sample() {
            final HttpResponse<String> r = broker.get("/metrics");
            if (r.statusCode() != 200) {
                return;
            }
            long used = 0;
            for (String line : r.body().split("\n")) {
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    used += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            max = Math.max(max, used);
        }

        long maxMiB() {
            return max >> 20;
        }
    }
}
