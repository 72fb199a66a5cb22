package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.RunningBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three {@code store} nodes (one store group, no client listeners) behind two stateless {@code proxy} processes. A
 * message sent through proxy A is received through proxy B on every protocol (Remoting, gRPC POP, MQTT QoS 1, AMQP
 * via Qpid JMS, CloudEvents over HTTP, and across protocols); proxy A is SIGKILLed and B's clients go on; the store
 * leader is SIGKILLed and, after the election, the proxy serves again: new sends are acknowledged and every message
 * acknowledged before is consumed.
 */
@Tag("cluster")
class ProxyIT {
    private static final String REMOTING_TOPIC = "proxy-remoting";
    private static final String GRPC_TOPIC = "proxy-grpc";
    private static final int COUNT = 10;
    private static final Duration WAIT = Duration.ofSeconds(30);

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
    void shouldServeEveryProtocolThroughEitherProxyAndSurviveProxyAndLeaderKills() throws Exception {
        final long began = System.nanoTime();
        startStoreGroup();
        System.out.printf("ProxyIT: three store nodes and two proxies healthy in %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
        final RunningBroker a = proxies.get(0);
        final RunningBroker b = proxies.get(1);
        assertThat(a.get("/cluster").body()).contains("\"role\":\"PROXY\"", "\"reachesLeader\":true");
        assertThat(b.get("/health").body()).contains("\"reachesLeader\":true");
        for (RunningBroker store : stores) {
            assertNoClientPort(store.port("remoting.port"));
            assertNoClientPort(store.port("grpc.port"));
            assertNoClientPort(store.port("mqtt.port"));
            assertNoClientPort(store.port("amqp.port"));
        }

        // Remoting: a producer on A, a push consumer on B.
        final DefaultMQProducer remotingA = remotingProducer(a, "a");
        final Set<String> remotingAcked = new HashSet<>(sendRemoting(remotingA, "remoting-a-", COUNT));
        assertThat(remotingAcked).hasSize(COUNT);
        final Set<String> remotingReceived = ConcurrentHashMap.newKeySet();
        pushConsumer(b, remotingReceived);
        awaitContains(remotingReceived, remotingAcked, "the Remoting messages sent on A, through B");

        // CloudEvents posted on A reach B's Remoting consumer (across protocols).
        final Set<String> posted = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "cloudevent-a-" + i;
            assertThat(post(a, REMOTING_TOPIC, body)).isEqualTo(202);
            posted.add(body);
        }
        awaitContains(remotingReceived, posted, "the CloudEvents posted on A, through B's Remoting consumer");

        // gRPC: a producer on B, a simple (POP) consumer on A.
        final Producer grpcB = track(ClientServiceProvider.loadService().newProducerBuilder()
                .setClientConfiguration(grpcConfig(b)).setTopics(GRPC_TOPIC).build());
        final Set<String> grpcSent = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "grpc-b-" + i;
            grpcB.send(ClientServiceProvider.loadService().newMessageBuilder().setTopic(GRPC_TOPIC)
                    .setBody(body.getBytes(StandardCharsets.UTF_8)).build());
            grpcSent.add(body);
        }
        final SimpleConsumer grpcA = track(ClientServiceProvider.loadService().newSimpleConsumerBuilder()
                .setClientConfiguration(grpcConfig(a)).setConsumerGroup("proxy-grpc-group")
                .setAwaitDuration(Duration.ofSeconds(5))
                .setSubscriptionExpressions(Map.of(GRPC_TOPIC, FilterExpression.SUB_ALL)).build());
        final Set<String> grpcReceived = new HashSet<>();
        await().atMost(WAIT).until(() -> {
            for (MessageView view : grpcA.receive(16, Duration.ofSeconds(30))) {
                grpcReceived.add(text(view.getBody()));
                grpcA.ack(view);
            }
            return grpcReceived.containsAll(grpcSent);
        });
        assertThat(grpcReceived).isEqualTo(grpcSent);

        // MQTT 5 QoS 1: a subscriber on B, a publisher on A.
        final Mqtt5BlockingClient mqttB = mqtt(b, "proxy-sub");
        final Mqtt5BlockingClient.Mqtt5Publishes incoming = mqttB.publishes(MqttGlobalPublishFilter.ALL);
        mqttB.subscribeWith().topicFilter("proxy/mqtt").qos(MqttQos.AT_LEAST_ONCE).send();
        final Mqtt5BlockingClient mqttA = mqtt(a, "proxy-pub");
        final Set<String> mqttSent = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "mqtt-a-" + i;
            mqttA.publishWith().topic("proxy/mqtt").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(body.getBytes(StandardCharsets.UTF_8)).send();
            mqttSent.add(body);
        }
        final Set<String> mqttReceived = new HashSet<>();
        final long mqttEnd = System.nanoTime() + WAIT.toNanos();
        while (!mqttReceived.containsAll(mqttSent) && System.nanoTime() < mqttEnd) {
            final Optional<Mqtt5Publish> p = incoming.receive(1, TimeUnit.SECONDS);
            p.ifPresent(publish -> mqttReceived.add(new String(publish.getPayloadAsBytes(), StandardCharsets.UTF_8)));
        }
        assertThat(mqttReceived).isEqualTo(mqttSent);

        // AMQP 1.0 (Qpid JMS): a producer on A, a consumer on B, one queue.
        final Set<String> jmsSent = new HashSet<>();
        final Connection jmsA = jms(a);
        final Session sendSession = jmsA.createSession(false, Session.AUTO_ACKNOWLEDGE);
        final MessageProducer jmsProducer = sendSession.createProducer(sendSession.createQueue("proxy-jms"));
        jmsProducer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 0; i < COUNT; i++) {
            final String body = "jms-a-" + i;
            final BytesMessage m = sendSession.createBytesMessage();
            m.writeBytes(body.getBytes(StandardCharsets.UTF_8));
            jmsProducer.send(m);
            jmsSent.add(body);
        }
        final Connection jmsB = jms(b);
        jmsB.start();
        final Session receiveSession = jmsB.createSession(false, Session.AUTO_ACKNOWLEDGE);
        final MessageConsumer jmsConsumer = receiveSession.createConsumer(receiveSession.createQueue("proxy-jms"));
        final Set<String> jmsReceived = new HashSet<>();
        final long jmsEnd = System.nanoTime() + WAIT.toNanos();
        while (!jmsReceived.containsAll(jmsSent) && System.nanoTime() < jmsEnd) {
            if (jmsConsumer.receive(1000) instanceof BytesMessage m) {
                final byte[] bytes = new byte[(int) m.getBodyLength()];
                m.readBytes(bytes);
                jmsReceived.add(new String(bytes, StandardCharsets.UTF_8));
            }
        }
        assertThat(jmsReceived).isEqualTo(jmsSent);

        // CloudEvents: a subscription read on B, events posted on A.
        assertThat(http.send(HttpRequest.newBuilder(URI.create(b.httpBase() + "/subscriptions/proxy-events"))
                .header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"topic\":\"proxy-events\"}")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
        final Set<String> eventsSent = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            final String body = "event-a-" + i;
            assertThat(post(a, "proxy-events", body)).isEqualTo(202);
            eventsSent.add(body);
        }
        final Set<String> eventsReceived = new HashSet<>();
        await().atMost(WAIT).until(() -> {
            final String answer = http.send(HttpRequest.newBuilder(URI.create(b.httpBase()
                            + "/subscriptions/proxy-events/receive?max=32&waitSeconds=2"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).body();
            for (String sent : eventsSent) {
                if (answer.contains("\"data\":\"" + sent + "\"")) {
                    eventsReceived.add(sent);
                }
            }
            return eventsReceived.containsAll(eventsSent);
        });

        // Proxy A dies: B's clients go on, nothing acknowledged is lost.
        a.kill();
        final DefaultMQProducer remotingB = remotingProducer(b, "b");
        final List<String> afterProxyKill = sendRemoting(remotingB, "remoting-b-", COUNT);
        assertThat(afterProxyKill).hasSize(COUNT);
        remotingAcked.addAll(afterProxyKill);
        remotingAcked.addAll(posted);
        awaitContains(remotingReceived, remotingAcked, "every acknowledged message after proxy A's death");
        assertThat(b.get("/cluster").body()).contains("\"reachesLeader\":true");

        // The store leader dies: after the election the proxy serves again.
        final RunningBroker leader = stores.stream().filter(ClusterLaunch::acceptsWrites).findFirst().orElseThrow();
        final long killedAt = System.nanoTime();
        leader.kill();
        final List<String> afterLeaderKill = new ArrayList<>();
        final int[] attempts = {0};
        final long[] firstAckedAt = {0};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            // Each attempt its own body: a send that failed may still have been stored (at least once).
            afterLeaderKill.addAll(sendRemoting(remotingB, "after-leader-" + attempts[0]++ + "-", 1));
            if (firstAckedAt[0] == 0 && !afterLeaderKill.isEmpty()) {
                firstAckedAt[0] = System.nanoTime();
            }
            return afterLeaderKill.size() >= COUNT;
        });
        System.out.printf("ProxyIT: store leader kill to the first acknowledged send through the proxy %d ms, to the"
                + " %d-th %d ms (%d attempts)%n", TimeUnit.NANOSECONDS.toMillis(firstAckedAt[0] - killedAt), COUNT,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt), attempts[0]);
        remotingAcked.addAll(afterLeaderKill);
        awaitContains(remotingReceived, remotingAcked, "every acknowledged message after the store leader's death");
        assertThat(b.get("/health").body()).contains("\"reachesLeader\":true");

        // A new consumer group reads the whole topic through the surviving proxy: every acknowledged message, each
        // stored once.
        final List<String> all = readAll(b, remotingAcked.size());
        assertThat(new HashSet<>(all)).containsAll(remotingAcked);
        assertThat(all.stream().filter(remotingAcked::contains).toList())
                .as("no acknowledged message stored twice").doesNotHaveDuplicates();
    }

    private void startStoreGroup() {
        ClusterLaunch.storeGroupsAndProxies(1, 3, "-Xmx192m", 2, stores, proxies);
    }

    private static void assertNoClientPort(final int port) {
        assertThatThrownBy(() -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            }
        }).as("a store node listens on no client port (%d)", port).isInstanceOf(IOException.class);
    }

    private <T extends AutoCloseable> T track(final T client) {
        clients.add(client);
        return client;
    }

    private DefaultMQProducer remotingProducer(final RunningBroker proxy, final String name) throws Exception {
        final DefaultMQProducer producer = new DefaultMQProducer("proxy-producer-" + name);
        producer.setNamesrvAddr(proxy.nameServer());
        producer.setInstanceName("proxy-" + name + "-" + System.nanoTime());
        producer.setSendMsgTimeout(5000);
        producer.setRetryTimesWhenSendFailed(0);
        producer.start();
        clients.add(producer::shutdown);
        return producer;
    }

    /** Sends {@code count} messages; returns the bodies acknowledged (a failed send is not retried). */
    private static List<String> sendRemoting(final DefaultMQProducer producer, final String prefix, final int count) {
        final List<String> acked = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final String body = prefix + i;
            try {
                if (producer.send(new Message(REMOTING_TOPIC, body.getBytes(StandardCharsets.UTF_8)))
                        .getSendStatus() == SendStatus.SEND_OK) {
                    acked.add(body);
                }
            } catch (Exception e) {
                // not acknowledged (an election, a dead node)
            }
        }
        return acked;
    }

    private void pushConsumer(final RunningBroker proxy, final Set<String> received) throws Exception {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("proxy-push-group");
        consumer.setNamesrvAddr(proxy.nameServer());
        consumer.setInstanceName("proxy-push-" + System.nanoTime());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(REMOTING_TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            msgs.forEach(m -> received.add(new String(m.getBody(), StandardCharsets.UTF_8)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        clients.add(consumer::shutdown);
    }

    private static List<String> readAll(final RunningBroker proxy, final int expected) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("proxy-audit-" + System.nanoTime());
        consumer.setNamesrvAddr(proxy.nameServer());
        consumer.setInstanceName("proxy-audit");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(REMOTING_TOPIC, "*");
        consumer.start();
        final List<String> got = new ArrayList<>();
        try {
            final long end = System.nanoTime() + WAIT.toNanos();
            while (got.size() < expected && System.nanoTime() < end) {
                for (MessageExt m : consumer.poll(500)) {
                    got.add(new String(m.getBody(), StandardCharsets.UTF_8));
                }
            }
        } finally {
            consumer.shutdown();
        }
        return got;
    }

    private static ClientConfiguration grpcConfig(final RunningBroker proxy) {
        return ClientConfiguration.newBuilder().setEndpoints(proxy.grpcEndpoint()).enableSsl(false)
                .setRequestTimeout(Duration.ofSeconds(5)).build();
    }

    private Mqtt5BlockingClient mqtt(final RunningBroker proxy, final String clientId) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(proxy.mqttPort()).buildBlocking();
        client.connectWith().cleanStart(true).send();
        clients.add(client::disconnect);
        return client;
    }

    private Connection jms(final RunningBroker proxy) throws Exception {
        final Connection connection = new JmsConnectionFactory("amqp://127.0.0.1:" + proxy.amqpPort()
                + "?jms.forceSyncSend=true&jms.closeTimeout=2000&jms.connectTimeout=5000").createConnection();
        clients.add(connection::close);
        return connection;
    }

    private int post(final RunningBroker proxy, final String topic, final String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + "/topics/" + topic))
                .timeout(Duration.ofSeconds(10))
                .header("ce-specversion", "1.0").header("ce-id", body).header("ce-source", "/proxy-test")
                .header("ce-type", "io.junction.proxy").header("content-type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static void awaitContains(final Set<String> received, final Set<String> expected, final String what) {
        await(what).atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> received.containsAll(expected));
        assertThat(received).as(what).containsAll(expected);
    }

    private static String text(final ByteBuffer body) {
        return StandardCharsets.UTF_8.decode(body.duplicate()).toString();
    }
}
