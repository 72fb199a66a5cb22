package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A FIFO consumer group of the RocketMQ 5 gRPC client reads a FIFO topic through a proxy over two store groups (one
 * {@code store} replica each) while the proxy scales the topic's queue from g1 to g2, with the first message of each
 * message group still unacknowledged in the old segment: the messages sent after the seam wait until those are
 * acked, and each message group comes in send order, every message once.
 */
@Tag("cluster")
class FifoSeamIT {
    private static final String TOPIC = "fifo-seam";
    private static final String CONSUMERS = "fifo-seam-consumers";
    private static final ClientServiceProvider GRPC = ClientServiceProvider.loadService();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration INVISIBLE = Duration.ofSeconds(30);

    @RegisterExtension
    final ClusterProcesses cluster = new ClusterProcesses();
    private final List<RunningBroker> stores = cluster.stores();
    private final List<RunningBroker> proxies = cluster.proxies();
    private final List<AutoCloseable> clients = cluster.clients();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldKeepEachMessageGroupInSendOrderAcrossTheSeamWhileOldMessagesAreInFlight() throws Exception {
        ClusterLaunch.storeGroupsAndProxies(2, 1, "-Xmx160m", 1, stores, proxies);
        final RunningBroker proxy = proxies.get(0);
        final HttpResponse<String> created = post(proxy, "/admin/topics",
                "{\"name\":\"" + TOPIC + "\",\"queues\":1,\"type\":\"FIFO\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        final DefaultMQAdminExt admin = RocketMqAdmin.started(proxy.nameServer());
        clients.add(admin::shutdown);
        final SubscriptionGroupConfig fifo = new SubscriptionGroupConfig();
        fifo.setGroupName(CONSUMERS);
        fifo.setConsumeMessageOrderly(true);
        admin.createAndUpdateSubscriptionGroupConfig(proxy.nameServer(), fifo);

        final ClientConfiguration configuration = ClientConfiguration.newBuilder()
                .setEndpoints(proxy.grpcEndpoint()).enableSsl(false).setRequestTimeout(Duration.ofSeconds(10))
                .build();
        // A client's start gives up after a short deadline of its own: on a loaded machine, start it again.
        final Producer producer = await().atMost(WAIT).ignoreExceptions().until(() -> GRPC.newProducerBuilder()
                .setClientConfiguration(configuration).setTopics(TOPIC).build(), p -> true);
        clients.add(producer);
        final SimpleConsumer consumer = await().atMost(WAIT).ignoreExceptions().until(() -> GRPC
                .newSimpleConsumerBuilder().setClientConfiguration(configuration).setConsumerGroup(CONSUMERS)
                .setAwaitDuration(Duration.ofSeconds(2))
                .setSubscriptionExpressions(Map.of(TOPIC, FilterExpression.SUB_ALL)).build(), c -> true);
        clients.add(consumer);

        for (int i = 0; i < 3; i++) {
            send(producer, "A", i);
            send(producer, "B", i);
        }
        // The first of each group, held unacknowledged (in flight) in g1's segment.
        final List<MessageView> inFlight = await().atMost(WAIT).until(() -> consumer.receive(32, INVISIBLE),
                got -> !got.isEmpty());
        final List<MessageView> firsts = new ArrayList<>(inFlight);
        while (firsts.size() < 2) {
            firsts.addAll(consumer.receive(32, INVISIBLE));
        }
        assertThat(firsts).extracting(FifoSeamIT::body).containsExactlyInAnyOrder("A0", "B0");

        final HttpResponse<String> scaled = post(proxy, "/admin/topics/" + TOPIC + "/scale?queues=1&groups=g2", "");
        assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);
        assertThat(scaled.body()).containsPattern("\"placement\":\"g1:0:0:0:6,g2:[0-9]+:6:0:-\"");
        for (int i = 3; i < 5; i++) {
            send(producer, "A", i);
            send(producer, "B", i);
        }

        // A1, B1 wait behind A0, B0 on g1, and A3, B3 on g2 wait for g1's segment: this long poll gets nothing.
        assertThat(consumer.receive(32, INVISIBLE)).extracting(FifoSeamIT::body)
                .as("nothing of a message group whose earlier message is unacknowledged").isEmpty();

        final Map<String, List<String>> byGroup = new LinkedHashMap<>();
        for (MessageView m : firsts) {
            byGroup.computeIfAbsent(m.getMessageGroup().orElseThrow(), g -> new ArrayList<>()).add(body(m));
            consumer.ack(m);
        }
        final long end = System.nanoTime() + WAIT.toNanos();
        int received = firsts.size();
        while (received < 10 && System.nanoTime() < end) {
            for (MessageView m : consumer.receive(32, INVISIBLE)) {
                byGroup.computeIfAbsent(m.getMessageGroup().orElseThrow(), g -> new ArrayList<>()).add(body(m));
                consumer.ack(m);
                received++;
            }
        }
        assertThat(byGroup.get("A")).containsExactly("A0", "A1", "A2", "A3", "A4");
        assertThat(byGroup.get("B")).containsExactly("B0", "B1", "B2", "B3", "B4");
    }

    private static void send(final Producer producer, final String group, final int seq) throws Exception {
        producer.send(GRPC.newMessageBuilder().setTopic(TOPIC).setMessageGroup(group)
                .setBody((group + seq).getBytes(StandardCharsets.UTF_8)).build());
    }

    private static String body(final MessageView m) {
        return StandardCharsets.UTF_8.decode(m.getBody().duplicate()).toString();
    }

    private HttpResponse<String> post(final RunningBroker proxy, final String path, final String json)
            throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + path))
                .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                .POST(json.isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
