package io.junction.conformance.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's JSON API against a secured broker process, over traffic of real clients (Qpid JMS; the RocketMQ 5
 * gRPC, RocketMQ Remoting and Kafka clients for the connections list): who may call it, and what it answers about
 * topics, groups, messages and connections.
 */
@WithBroker(settings = {ConsoleUsers.ON, ConsoleUsers.KEY_SETTING}, seed = ConsoleUsers.class)
class ConsoleApiIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROOT = basic("root", "root-pw");

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldAnswerSuperUsersOnly() {
        final HttpResponse<String> anonymous = call("GET", "/admin/overview", null, null, false);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
        // The console's own calls get no challenge, so the browser shows the page's login form, not its dialog.
        final HttpResponse<String> fromConsole = call("GET", "/admin/overview", null, null, true);
        assertThat(fromConsole.statusCode()).isEqualTo(401);
        assertThat(fromConsole.headers().firstValue("WWW-Authenticate")).isEmpty();
        assertThat(call("GET", "/admin/topics", basic("root", "nope"), null, false).statusCode()).isEqualTo(401);
        assertThat(call("GET", "/admin/topics", basic("dave", "dave-pw"), null, false).statusCode()).isEqualTo(403);
        assertThat(call("GET", "/admin/topics", ROOT, null, false).statusCode()).isEqualTo(200);
        // The page itself carries no data: anyone may load it.
        final HttpResponse<String> page = call("GET", "/console", null, null, false);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Junction console</title>");
        assertThat(call("GET", "/console/lib/alpinejs/dist/module.esm.js", null, null, false).statusCode())
                .isEqualTo(200);
        assertThat(call("GET", "/console/lib/uplot/dist/uPlot.esm.js", null, null, false).statusCode())
                .isEqualTo(200);
        assertThat(call("GET", "/console/../README.md", null, null, false).statusCode()).isEqualTo(404);
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp ->
                assertThat(csp).contains("default-src 'self'").contains("frame-ancestors 'none'"));
    }

    @Test
    void shouldRefuseChangesNotSentAsJson() throws Exception {
        // What a cross-site form could send without a CORS preflight: refused before anything changes.
        final HttpResponse<String> form = HTTP.send(HttpRequest.newBuilder(URI.create(broker.httpBase()
                        + "/admin/topics")).timeout(WAIT).header("Authorization", ROOT)
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"api-forged\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(form.statusCode()).isEqualTo(415);
        assertThat(call("GET", "/admin/topics/api-forged", ROOT, null, false).statusCode()).isEqualTo(404);
    }

    @Test
    void shouldIssueListAndRevokeABearerTokenThatACloudEventsClientUses() throws Exception {
        final JsonNode issued = json(call("POST", "/admin/users/dave/tokens", ROOT, "{}", false), 201);
        final String token = issued.path("token").asText();
        final String id = issued.path("id").asText();
        assertThat(token).startsWith("jt_");
        assertThat(id).hasSize(16);
        assertThat(token).doesNotContain(id);

        // Listed by id and issue time, never the token itself.
        final HttpResponse<String> listed = call("GET", "/admin/users/dave/tokens", ROOT, null, false);
        final JsonNode tokens = json(listed, 200).path("tokens");
        assertThat(listed.body()).doesNotContain(token);
        assertThat(tokenIds(tokens)).contains(id);
        JsonNode mine = MissingNode.getInstance();
        for (final JsonNode t : tokens) {
            mine = t.path("id").asText().equals(id) ? t : mine;
        }
        assertThat(mine.path("issuedAt").asLong()).isEqualTo(issued.path("issuedAt").asLong()).isPositive();
        assertThat(json(get("/admin/users/dave"), 200).path("tokens").asInt()).isEqualTo(tokens.size());

        // A CloudEvents producer with the token publishes as dave.
        assertThat(cloudEvent("api-token-events", "Bearer " + token).statusCode()).isBetween(200, 299);
        await().atMost(WAIT).untilAsserted(() -> assertThat(json(get("/admin/topics/api-token-events"), 200)
                .path("queues").findValues("maxOffset").stream().mapToLong(JsonNode::asLong).sum()).isEqualTo(1));

        assertThat(json(call("DELETE", "/admin/users/dave/tokens/" + id, ROOT, null, false), 200)
                .path("revoked").asText()).isEqualTo(id);
        assertThat(cloudEvent("api-token-events", "Bearer " + token).statusCode()).isEqualTo(401);
        assertThat(tokenIds(json(get("/admin/users/dave/tokens"), 200).path("tokens"))).doesNotContain(id);
        assertThat(call("DELETE", "/admin/users/dave/tokens/" + id, ROOT, null, false).statusCode()).isEqualTo(404);
        assertThat(call("GET", "/admin/users/nobody/tokens", ROOT, null, false).statusCode()).isEqualTo(404);
        assertThat(call("GET", "/admin/users/dave/tokens", basic("dave", "dave-pw"), null, false).statusCode())
                .isEqualTo(403);
    }

    private static List<String> tokenIds(final JsonNode tokens) {
        final List<String> ids = new ArrayList<>();
        tokens.forEach(t -> ids.add(t.path("id").asText()));
        return ids;
    }

    /** One CloudEvent in binary mode to {@code topic}, with the given Authorization header. */
    private static HttpResponse<String> cloudEvent(final String topic, final String authorization) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(broker.httpBase() + "/topics/" + topic)).timeout(WAIT)
                .header("Authorization", authorization).header("ce-specversion", "1.0").header("ce-id", "token-1")
                .header("ce-source", "/console-test").header("ce-type", "token.used")
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("with a token"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldCreateListAndDeleteATopic() throws Exception {
        final JsonNode created = json(call("POST", "/admin/topics", ROOT,
                "{\"name\":\"api-orders\",\"queues\":3,\"attributes\":{\"trace.enabled\":\"true\"}}", false), 201);
        assertThat(created.path("queueCount").asInt()).isEqualTo(3);
        assertThat(created.path("queues")).hasSize(3);

        send("api-orders", 4, null);
        await().atMost(WAIT).untilAsserted(() -> {
            final JsonNode page = json(get("/admin/topics?q=api-ord"), 200);
            assertThat(page.path("total").asInt()).isEqualTo(1);
            final JsonNode t = page.path("topics").get(0);
            assertThat(t.path("name").asText()).isEqualTo("api-orders");
            assertThat(t.path("messages").asLong()).isEqualTo(4);
            assertThat(t.path("attributes").path("trace.enabled").asText()).isEqualTo("true");
        });
        // System topics only on request.
        assertThat(names(json(get("/admin/topics?limit=200"), 200))).doesNotContain("RMQ_SYS_TRACE_TOPIC");
        assertThat(names(json(get("/admin/topics?limit=200&system=true"), 200))).contains("RMQ_SYS_TRACE_TOPIC");
        // Pages are bounded whatever the client asks.
        assertThat(json(get("/admin/topics?limit=100000"), 200).path("limit").asInt()).isEqualTo(200);
        assertThat(call("GET", "/admin/topics?limit=lots", ROOT, null, false).statusCode()).isEqualTo(400);

        assertThat(json(call("DELETE", "/admin/topics/api-orders", ROOT, null, false), 200).path("deleted").asText())
                .isEqualTo("api-orders");
        assertThat(call("GET", "/admin/topics/api-orders", ROOT, null, false).statusCode()).isEqualTo(404);
        assertThat(call("DELETE", "/admin/topics/api-orders", ROOT, null, false).statusCode()).isEqualTo(404);
    }

    @Test
    void shouldShowAGroupsLagAndResetItsOffsetsByTime() throws Exception {
        send("api-lag", 3, null);
        final long consumedFrom = System.currentTimeMillis();
        final Connection c = new JmsConnectionFactory("dave", "dave-pw", broker.amqpUri()).createConnection();
        c.setClientID("api-lag-consumer"); // the AMQP container id
        try (c) {
            c.start();
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final MessageConsumer consumer = s.createConsumer(s.createQueue("api-lag"));
            for (int i = 0; i < 3; i++) {
                final Message m = consumer.receive(WAIT.toMillis());
                assertThat(m).isNotNull();
                m.acknowledge();
            }
            // A POP consumer sends no heartbeat: the group lists it from its pops, its address from its connection.
            final JsonNode group = json(get("/admin/groups/api-lag"), 200);
            assertThat(group.path("clients").size()).isZero();
            final JsonNode pop = group.path("popConsumers").path(0);
            assertThat(pop.path("protocol").asText()).isEqualTo("amqp");
            assertThat(pop.path("clientId").asText()).isEqualTo("api-lag-consumer");
            assertThat(pop.path("remote").asText()).startsWith("127.0.0.1:");
            assertThat(pop.path("lastPop").asLong()).isGreaterThanOrEqualTo(consumedFrom);
            assertThat(json(get("/admin/groups?q=api-lag"), 200).path("groups").path(0).path("popConsumers").asInt())
                    .isEqualTo(1);
        }
        final JsonNode group = json(get("/admin/groups/api-lag"), 200);
        assertThat(group.path("name").asText()).isEqualTo("api-lag");
        assertThat(group.path("deadLetters").asLong()).isZero();

        // Back to the start: everything the queue holds is lag again.
        final JsonNode reset = json(call("POST", "/admin/groups/api-lag/reset", ROOT,
                "{\"topic\":\"api-lag\",\"timestamp\":0}", false), 200);
        assertThat(reset.path("offsets").size()).isPositive();
        reset.path("offsets").forEach(o -> assertThat(o.asLong()).isZero());
        final JsonNode after = json(get("/admin/groups/api-lag"), 200);
        final JsonNode topic = after.path("topics").get(0);
        assertThat(topic.path("topic").asText()).isEqualTo("api-lag");
        assertThat(topic.path("lag").asLong()).isEqualTo(3);
        assertThat(call("POST", "/admin/groups/api-lag/reset", ROOT, "{\"topic\":\"api-lag\"}", false).statusCode())
                .isEqualTo(400);
        assertThat(call("GET", "/admin/groups/no-such-group", ROOT, null, false).statusCode()).isEqualTo(404);
    }

    @Test
    void shouldListAnMqttSharedSubscriberAsItsGroupsPopConsumer() throws Exception {
        final Mqtt5BlockingClient subscriber = Mqtt5Client.builder().identifier("api-shared-sub")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort())
                .simpleAuth().username("dave").password("dave-pw".getBytes(StandardCharsets.UTF_8)).applySimpleAuth()
                .buildBlocking();
        final Mqtt5BlockingClient publisher = Mqtt5Client.builder().identifier("api-shared-pub")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort())
                .simpleAuth().username("dave").password("dave-pw".getBytes(StandardCharsets.UTF_8)).applySimpleAuth()
                .buildBlocking();
        subscriber.connect();
        publisher.connect();
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = subscriber.publishes(MqttGlobalPublishFilter.ALL)) {
            subscriber.subscribeWith().topicFilter("$share/api-team/api-shared/#").qos(MqttQos.AT_LEAST_ONCE).send();
            publisher.publishWith().topic("api-shared/a").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("shared".getBytes(StandardCharsets.UTF_8)).send();
            assertThat(publishes.receive(WAIT.toSeconds(), TimeUnit.SECONDS)).isPresent();

            // The share group reads by POP: no heartbeat, listed from its member's pops with its connection's address.
            final JsonNode pop = await().atMost(WAIT).until(() -> {
                final JsonNode groups = json(get("/admin/groups?q=api-team"), 200).path("groups");
                return groups.size() == 0 ? MissingNode.getInstance()
                        : json(get("/admin/groups/" + enc(groups.path(0).path("name").asText())), 200)
                                .path("popConsumers").path(0);
            }, n -> !n.isMissingNode());
            assertThat(pop.path("protocol").asText()).isEqualTo("mqtt");
            assertThat(pop.path("clientId").asText()).isEqualTo("api-shared-sub");
            assertThat(pop.path("remote").asText()).startsWith("127.0.0.1:");
        } finally {
            publisher.disconnect();
            subscriber.disconnect();
        }
    }

    @Test
    void shouldSearchMessagesByTimeAndByIdWithBoundedPreviews() throws Exception {
        final long before = System.currentTimeMillis() - 1000;
        final byte[] big = new byte[10_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        send("api-search", 2, big);
        final long after = System.currentTimeMillis() + 1000;

        final JsonNode byTime = json(get("/admin/messages?topic=api-search&begin=" + before + "&end=" + after), 200);
        assertThat(byTime.path("messages")).hasSize(2);
        final JsonNode m = byTime.path("messages").get(0);
        assertThat(m.path("bodyEncoding").asText()).isEqualTo("hex");
        assertThat(m.path("bodySize").asInt()).isEqualTo(10_000);
        assertThat(m.path("bodyTruncated").asBoolean()).isTrue();
        assertThat(m.path("body").asText()).startsWith("00 01 02 03").hasSize(4096 * 3 - 1);

        final String id = m.path("id").asText();
        final JsonNode byId = json(get("/admin/messages?topic=api-search&id=" + enc(id)), 200);
        assertThat(byId.path("messages")).hasSize(1);
        assertThat(byId.path("messages").get(0).path("queueOffset").asLong())
                .isEqualTo(m.path("queueOffset").asLong());
        assertThat(json(get("/admin/messages?topic=api-search&id=nope"), 200).path("messages")).isEmpty();
        assertThat(call("GET", "/admin/messages?topic=api-search", ROOT, null, false).statusCode()).isEqualTo(400);
        assertThat(call("GET", "/admin/messages?topic=no-such&id=x", ROOT, null, false).statusCode()).isEqualTo(404);
    }

    @Test
    void shouldListAnAmqpConnectionWithItsLinksAndDisconnectIt() throws Exception {
        final CompletableFuture<JMSException> lost = new CompletableFuture<>();
        final Connection c = new JmsConnectionFactory("dave", "dave-pw", broker.amqpUri()).createConnection();
        try {
            c.setClientID("api-jms");
            c.setExceptionListener(lost::complete);
            c.start();
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(s.createQueue("api-conn-in"));
            s.createProducer(s.createQueue("api-conn-out"));

            // Listed once open; its links as they attach.
            final JsonNode listed = await().atMost(WAIT).until(() -> json(
                    get("/admin/connections?protocol=amqp&q=api-jms"), 200).path("connections").path(0),
                    n -> n.path("details").size() == 2);
            assertThat(listed.path("clientId").asText()).isEqualTo("api-jms");
            assertThat(listed.path("version").asText()).isEqualTo("1.0");
            assertThat(listed.path("user").asText()).isEqualTo("dave");
            assertThat(listed.path("remote").asText()).startsWith("127.0.0.1:");
            final List<String> details = new ArrayList<>();
            listed.path("details").forEach(d -> details.add(d.asText()));
            assertThat(details).containsExactlyInAnyOrder("receives from api-conn-in", "sends to api-conn-out");

            json(call("DELETE", "/admin/connections/" + listed.path("id").asLong(), ROOT, null, false), 200);
            assertThat(lost.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(json(get("/admin/connections?q=api-jms"), 200).path("total").asInt()).isZero());
            assertThat(call("DELETE", "/admin/connections/" + listed.path("id").asLong(), ROOT, null, false)
                    .statusCode()).isEqualTo(404);
        } finally {
            c.close();
        }
    }

    @Test
    void shouldListAGrpcClientWithWhatItDeclaredAndDisconnectIt() throws Exception {
        final ClientConfiguration configuration = ClientConfiguration.newBuilder()
                .setEndpoints(broker.grpcEndpoint()).enableSsl(false).setRequestTimeout(Duration.ofSeconds(5))
                .setCredentialProvider(new StaticSessionCredentialsProvider("dave", "dave-secret")).build();
        try (Producer producer = ClientServiceProvider.loadService().newProducerBuilder()
                .setClientConfiguration(configuration).setTopics("api-grpc-out").build()) {
            final JsonNode listed = await().atMost(WAIT).until(() -> grpcClientPublishing("api-grpc-out"),
                    n -> !n.isMissingNode());
            assertThat(listed.path("version").asText()).startsWith("JAVA 5.");
            assertThat(listed.path("user").asText()).isEqualTo("dave");
            assertThat(listed.path("remote").asText()).startsWith("127.0.0.1:");
            assertThat(texts(listed.path("details"))).containsExactly("producer", "publishes to api-grpc-out");

            json(call("DELETE", "/admin/connections/" + listed.path("id").asLong(), ROOT, null, false), 200);

            // Its connection closed, the client opens another and its Telemetry session again: listed anew.
            final JsonNode again = await().atMost(WAIT).until(() -> grpcClientPublishing("api-grpc-out"),
                    n -> !n.isMissingNode() && n.path("id").asLong() != listed.path("id").asLong());
            assertThat(again.path("clientId").asText()).isEqualTo(listed.path("clientId").asText());
            assertThat(again.path("remote").asText()).isNotEqualTo(listed.path("remote").asText());
            assertThat(call("DELETE", "/admin/connections/" + listed.path("id").asLong(), ROOT, null, false)
                    .statusCode()).isEqualTo(404);
            // and it still works
            assertThat(producer.send(ClientServiceProvider.loadService().newMessageBuilder()
                    .setTopic("api-grpc-out").setBody("after".getBytes(StandardCharsets.UTF_8)).build())
                    .getMessageId()).isNotNull();
        }
    }

    @Test
    void shouldListARemotingClientWithItsGroupsShowItsConsumerInTheGroupAndDisconnectIt() throws Exception {
        final DefaultMQProducer producer = new DefaultMQProducer("api-remoting-pg",
                new AclClientRPCHook(new SessionCredentials("dave", "dave-secret")));
        producer.setNamesrvAddr(broker.nameServer());
        producer.setInstanceName("api-remoting-client");
        producer.setHeartbeatBrokerInterval(1000);
        producer.setSendMsgTimeout(5000);
        producer.start();
        // The group exists before its consumer comes (a Remoting consumer that only pulls creates none).
        final DefaultMQAdminExt admin = new DefaultMQAdminExt(
                new AclClientRPCHook(new SessionCredentials("root", "root-secret")));
        admin.setNamesrvAddr(broker.nameServer());
        admin.setInstanceName("api-remoting-admin");
        admin.start();
        try {
            final SubscriptionGroupConfig group = new SubscriptionGroupConfig();
            group.setGroupName("api-remoting-cg");
            admin.createAndUpdateSubscriptionGroupConfig(broker.nameServer(), group);
        } finally {
            admin.shutdown();
        }
        // The same instance name: one client (one id, one connection) with a producer and a consumer.
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("api-remoting-cg",
                new AclClientRPCHook(new SessionCredentials("dave", "dave-secret")),
                new AllocateMessageQueueAveragely());
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName("api-remoting-client");
        consumer.subscribe("api-remoting-out", "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        try {
            // A producer sends heartbeats to the brokers of the topics it sent to.
            assertThat(producer.send(new org.apache.rocketmq.common.message.Message("api-remoting-out",
                    "hello".getBytes(StandardCharsets.UTF_8))).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            consumer.start();
            final JsonNode listed = await().atMost(WAIT).until(() -> json(
                    get("/admin/connections?protocol=remoting&q=api-remoting-client"), 200).path("connections")
                    .path(0), n -> texts(n.path("details")).containsAll(List.of("producer of api-remoting-pg",
                    "consumer of api-remoting-cg")));
            assertThat(listed.path("clientId").asText()).endsWith("@api-remoting-client");
            assertThat(listed.path("version").asText()).startsWith("JAVA ");
            assertThat(listed.path("user").asText()).isEqualTo("dave");
            assertThat(listed.path("remote").asText()).startsWith("127.0.0.1:");
            // The group's consumer with the protocol and address its connection is listed with.
            await().atMost(WAIT).untilAsserted(() -> {
                final JsonNode member = json(get("/admin/groups/api-remoting-cg"), 200).path("clients").path(0);
                assertThat(member.path("clientId").asText()).isEqualTo(listed.path("clientId").asText());
                assertThat(member.path("protocol").asText()).isEqualTo("remoting");
                assertThat(member.path("remote").asText()).isEqualTo(listed.path("remote").asText());
            });

            json(call("DELETE", "/admin/connections/" + listed.path("id").asLong(), ROOT, null, false), 200);

            // The client saw its channel close: its next heartbeat comes over a new connection.
            final JsonNode again = await().atMost(WAIT).until(() -> json(
                    get("/admin/connections?protocol=remoting&q=api-remoting-client"), 200).path("connections")
                    .path(0), n -> !n.isMissingNode() && n.path("id").asLong() != listed.path("id").asLong());
            assertThat(again.path("remote").asText()).isNotEqualTo(listed.path("remote").asText());
            assertThat(call("DELETE", "/admin/connections/" + listed.path("id").asLong(), ROOT, null, false)
                    .statusCode()).isEqualTo(404);
        } finally {
            consumer.shutdown();
            producer.shutdown();
        }
    }

    @Test
    void shouldListAKafkaConnectionWithItsClientIdAndDisconnectIt() throws Exception {
        final Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "api-kafka-client");
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        config.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"dave\" password=\"dave-pw\";");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>("api-kafka-out", "k", "v")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            final JsonNode page = await().atMost(WAIT).until(() -> json(
                    get("/admin/connections?protocol=kafka&q=api-kafka-client"), 200),
                    p -> p.path("total").asInt() > 0);
            final List<Long> ids = new ArrayList<>();
            for (JsonNode c : page.path("connections")) {
                assertThat(c.path("clientId").asText()).isEqualTo("api-kafka-client");
                assertThat(c.path("user").asText()).isEqualTo("dave");
                assertThat(c.path("remote").asText()).startsWith("127.0.0.1:");
                ids.add(c.path("id").asLong());
            }
            final double closedBefore = closedConnections(producer);

            for (long id : ids) {
                json(call("DELETE", "/admin/connections/" + id, ROOT, null, false), 200);
            }

            // The producer counts the connections the broker closed, and connects again to send.
            await().atMost(WAIT).until(() -> closedConnections(producer) > closedBefore);
            producer.send(new ProducerRecord<>("api-kafka-out", "k", "again"))
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            await().atMost(WAIT).untilAsserted(() -> {
                final JsonNode after = json(get("/admin/connections?protocol=kafka&q=api-kafka-client"), 200);
                assertThat(after.path("total").asInt()).isPositive();
                after.path("connections").forEach(c -> assertThat(ids).doesNotContain(c.path("id").asLong()));
            });
        }
    }

    /** The gRPC client listed as publishing to {@code topic}, or a missing node. */
    private static JsonNode grpcClientPublishing(final String topic) throws IOException {
        for (JsonNode c : json(get("/admin/connections?protocol=grpc"), 200).path("connections")) {
            if (texts(c.path("details")).contains("publishes to " + topic)) {
                return c;
            }
        }
        return MissingNode.getInstance();
    }

    private static double closedConnections(final KafkaProducer<?, ?> producer) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("connection-close-total")
                        && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    private static List<String> texts(final JsonNode array) {
        final List<String> texts = new ArrayList<>();
        array.forEach(t -> texts.add(t.asText()));
        return texts;
    }

    /** Sends {@code count} messages to a queue with Qpid JMS: text, or {@code body} as bytes when not null. */
    private static void send(final String queue, final int count, final byte[] body) throws Exception {
        try (Connection c = jms()) {
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue q = s.createQueue(queue);
            final MessageProducer producer = s.createProducer(q);
            for (int i = 0; i < count; i++) {
                if (body == null) {
                    producer.send(s.createTextMessage("message " + i));
                } else {
                    final BytesMessage b = s.createBytesMessage();
                    b.writeBytes(body);
                    producer.send(b);
                }
            }
        }
    }

    private static Connection jms() throws Exception {
        final Connection c = new JmsConnectionFactory("dave", "dave-pw", broker.amqpUri()).createConnection();
        c.start();
        return c;
    }

    private static List<String> names(final JsonNode page) {
        final List<String> names = new ArrayList<>();
        page.path("topics").forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    private static HttpResponse<String> get(final String path) {
        return call("GET", path, ROOT, null, false);
    }

    private static JsonNode json(final HttpResponse<String> response, final int status) throws IOException {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> call(final String method, final String path, final String authorization,
                                             final String body, final boolean fromConsole) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(broker.httpBase() + path))
                .timeout(WAIT) // a deadline, not a speed bar: the first authentication is slow on a loaded machine
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (fromConsole) {
            b.header("X-Junction-Console", "1");
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String basic(final String user, final String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    private static String enc(final String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
