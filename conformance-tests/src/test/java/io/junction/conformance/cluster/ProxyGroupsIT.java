package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.RunningBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two store groups (one {@code store} replica each) behind one proxy ({@code cluster.store-groups}): topics created
 * through the proxy get their queues placed round robin over both groups, and real clients see one broker. A Remoting
 * producer sends to every queue and a lite pull consumer reads each queue from 0 in order; a gRPC producer and
 * simple (POP) consumer, an MQTT 5 QoS 1 publisher and subscriber and a CloudEvents subscription each get every message
 * once with its content; each group's {@code /metrics} shows it stored part of the topics.
 */
@Tag("cluster")
class ProxyGroupsIT {
    private static final String REMOTING_TOPIC = "groups-remoting";
    private static final String GRPC_TOPIC = "groups-grpc";
    private static final int QUEUES = 4;
    private static final int COUNT = 40;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Route and send answers on a shared machine under load (seconds-long JVM pauses seen) without a client retry. */
    private static final int CLIENT_TIMEOUT_MS = ClusterProcesses.CLIENT_TIMEOUT_MS;

    static {
        // keep the gRPC client's own log files out of the user's home
        System.setProperty("rocketmq.log.root", System.getProperty("java.io.tmpdir") + "/junction-grpc-client-logs");
    }

    @RegisterExtension
    final ClusterProcesses cluster = new ClusterProcesses();
    private final List<RunningBroker> stores = cluster.stores();
    private final List<RunningBroker> proxies = cluster.proxies();
    private final List<AutoCloseable> clients = cluster.clients();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldSpreadTopicsOverTwoStoreGroupsAndServeEveryProtocolThroughOneProxy() throws Exception {
        final long began = System.nanoTime();
        final RunningBroker proxy = startTwoGroupsAndAProxy();
        System.out.printf("ProxyGroupsIT: two store groups and a proxy healthy in %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
        assertThat(proxy.get("/cluster").body()).contains("\"role\":\"PROXY\"", "\"reachesLeader\":true",
                "\"name\":\"g1\"", "\"name\":\"g2\"");

        createTopic(proxy, REMOTING_TOPIC);
        createTopic(proxy, GRPC_TOPIC);
        assertThat(proxy.get("/cluster").body()).contains("\"" + REMOTING_TOPIC + "\":\"g1;g2;g1;g2\"",
                "\"" + GRPC_TOPIC + "\":\"g1;g2;g1;g2\"");

        // Remoting: a producer sends to each queue in turn; a lite pull consumer reads each queue from 0, in order.
        final DefaultMQProducer producer = cluster.remotingProducer(proxy, "groups-producer");
        final Map<Integer, List<String>> sentPerQueue = new HashMap<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "remoting-" + i;
            final SendResult r = producer.send(new Message(REMOTING_TOPIC, body.getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), i);
            assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            assertThat(r.getQueueOffset()).as("logical offsets, one sequence per queue")
                    .isEqualTo(sentPerQueue.getOrDefault(r.getMessageQueue().getQueueId(), List.of()).size());
            sentPerQueue.computeIfAbsent(r.getMessageQueue().getQueueId(), q -> new ArrayList<>()).add(body);
        }
        assertThat(sentPerQueue).hasSize(QUEUES);
        final Map<Integer, List<MessageExt>> readPerQueue = readEveryQueueFromZero(proxy);
        for (int q = 0; q < QUEUES; q++) {
            assertThat(readPerQueue.get(q)).extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8))
                    .as("queue %d in order, each once", q).containsExactlyElementsOf(sentPerQueue.get(q));
            assertThat(readPerQueue.get(q)).extracting(MessageExt::getQueueOffset)
                    .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        }

        // gRPC: a producer and a simple (POP) consumer; POP spreads over both groups, acks go back to each.
        final Producer grpcProducer = track(ClientServiceProvider.loadService().newProducerBuilder()
                .setClientConfiguration(grpcConfig(proxy)).setTopics(GRPC_TOPIC).build());
        final Set<String> grpcSent = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "grpc-" + i;
            grpcProducer.send(ClientServiceProvider.loadService().newMessageBuilder().setTopic(GRPC_TOPIC)
                    .setBody(body.getBytes(StandardCharsets.UTF_8)).build());
            grpcSent.add(body);
        }
        final SimpleConsumer simple = track(ClientServiceProvider.loadService().newSimpleConsumerBuilder()
                .setClientConfiguration(grpcConfig(proxy)).setConsumerGroup("groups-grpc-group")
                .setAwaitDuration(Duration.ofSeconds(3))
                .setSubscriptionExpressions(Map.of(GRPC_TOPIC, FilterExpression.SUB_ALL)).build());
        final List<String> grpcReceived = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            for (MessageView view : simple.receive(16, Duration.ofSeconds(30))) {
                grpcReceived.add(text(view.getBody()));
                simple.ack(view);
            }
            return grpcReceived.size() >= grpcSent.size();
        });
        assertThat(grpcReceived).as("every message once").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(grpcSent);

        // MQTT 5 QoS 1: the core topic the publish creates (4 queues) is spread too.
        final Mqtt5BlockingClient subscriber = mqtt(proxy, "groups-sub");
        final Mqtt5BlockingClient.Mqtt5Publishes incoming = subscriber.publishes(MqttGlobalPublishFilter.ALL);
        subscriber.subscribeWith().topicFilter("groups/mqtt").qos(MqttQos.AT_LEAST_ONCE).send();
        final Mqtt5BlockingClient publisher = mqtt(proxy, "groups-pub");
        final Set<String> mqttSent = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "mqtt-" + i;
            publisher.publishWith().topic("groups/mqtt").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(body.getBytes(StandardCharsets.UTF_8)).send();
            mqttSent.add(body);
        }
        final List<String> mqttReceived = new ArrayList<>();
        final long mqttEnd = System.nanoTime() + WAIT.toNanos();
        while (mqttReceived.size() < mqttSent.size() && System.nanoTime() < mqttEnd) {
            final Optional<Mqtt5Publish> p = incoming.receive(1, TimeUnit.SECONDS);
            p.ifPresent(publish -> mqttReceived.add(new String(publish.getPayloadAsBytes(), StandardCharsets.UTF_8)));
        }
        assertThat(mqttReceived).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(mqttSent);

        // CloudEvents: a subscription (8 queues over both groups) reads every posted event.
        assertThat(http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + "/subscriptions/groups-events"))
                .header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"topic\":\"groups-events\"}")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
        final Set<String> eventsSent = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "event-" + i;
            assertThat(post(proxy, "groups-events", body)).isEqualTo(202);
            eventsSent.add(body);
        }
        final Set<String> eventsReceived = new HashSet<>();
        await().atMost(WAIT).until(() -> {
            final String answer = http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase()
                            + "/subscriptions/groups-events/receive?max=32&waitSeconds=2"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).body();
            for (String sent : eventsSent) {
                if (answer.contains("\"data\":\"" + sent + "\"")) {
                    eventsReceived.add(sent);
                }
            }
            return eventsReceived.containsAll(eventsSent);
        });

        // Each group stored its part: half of each spread topic's messages.
        for (RunningBroker store : stores) {
            await().atMost(WAIT).untilAsserted(() -> {
                final String metrics = store.get("/metrics").body();
                assertThat(storedCount(metrics, REMOTING_TOPIC)).isEqualTo(COUNT / 2);
                assertThat(storedCount(metrics, GRPC_TOPIC)).isEqualTo(COUNT / 2);
                assertThat(storedCount(metrics, "groups-events")).isPositive();
            });
        }
    }

    private RunningBroker startTwoGroupsAndAProxy() {
        ClusterLaunch.storeGroupsAndProxies(2, 1, "-Xmx160m", 1, stores, proxies);
        return proxies.get(0);
    }

    private void createTopic(final RunningBroker proxy, final String topic) throws Exception {
        assertThat(http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + "/admin/topics"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + topic + "\",\"queues\":" + QUEUES + "}"))
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
    }

    /**
     * A lite pull consumer of a new group assigned every queue until it read {@link #COUNT} messages. The group starts
     * at each queue's first offset by its consume-from-where, not by a seek per queue: a seek interrupts its queue's
     * pull task, and a task interrupted in a request makes the client close the connection the other seeks use.
     */
    private static Map<Integer, List<MessageExt>> readEveryQueueFromZero(final RunningBroker proxy)
            throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("groups-reader-" + System.nanoTime());
        consumer.setNamesrvAddr(proxy.nameServer());
        consumer.setInstanceName("groups-reader-" + System.nanoTime());
        consumer.setAutoCommit(false);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setMqClientApiTimeout(CLIENT_TIMEOUT_MS);
        consumer.start();
        final Map<Integer, List<MessageExt>> perQueue = new HashMap<>();
        try {
            final List<MessageQueue> queues = new ArrayList<>(consumer.fetchMessageQueues(REMOTING_TOPIC));
            assertThat(queues).hasSize(QUEUES);
            consumer.assign(queues);
            int read = 0;
            final long end = System.nanoTime() + WAIT.toNanos();
            while (read < COUNT && System.nanoTime() < end) {
                for (MessageExt m : consumer.poll(500)) {
                    perQueue.computeIfAbsent(m.getQueueId(), q -> new ArrayList<>()).add(m);
                    read++;
                }
            }
        } finally {
            consumer.shutdown();
        }
        return perQueue;
    }

    /** {@code junction_messages_in_total{topic="..."}} of a store node's {@code /metrics}, 0 when absent. */
    private static long storedCount(final String metrics, final String topic) {
        final Matcher m = Pattern.compile("^junction_messages_in_total\\{[^}]*topic=\"" + Pattern.quote(topic)
                + "\"[^}]*} ([0-9.eE+]+)$", Pattern.MULTILINE).matcher(metrics);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    private <T extends AutoCloseable> T track(final T client) {
        clients.add(client);
        return client;
    }

    private static ClientConfiguration grpcConfig(final RunningBroker proxy) {
        return ClientConfiguration.newBuilder().setEndpoints(proxy.grpcEndpoint()).enableSsl(false)
                .setRequestTimeout(Duration.ofMillis(CLIENT_TIMEOUT_MS)).build();
    }

    private Mqtt5BlockingClient mqtt(final RunningBroker proxy, final String clientId) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(proxy.mqttPort()).buildBlocking();
        client.connectWith().cleanStart(true).send();
        clients.add(client::disconnect);
        return client;
    }

    private int post(final RunningBroker proxy, final String topic, final String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + "/topics/" + topic))
                .timeout(Duration.ofSeconds(10))
                .header("ce-specversion", "1.0").header("ce-id", body).header("ce-source", "/groups-test")
                .header("ce-type", "io.junction.groups").header("content-type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static String text(final ByteBuffer body) {
        return StandardCharsets.UTF_8.decode(body.duplicate()).toString();
    }
}
