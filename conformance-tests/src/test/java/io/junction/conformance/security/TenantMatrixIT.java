package io.junction.conformance.security;

import static io.junction.conformance.security.SecuredHttp.basic;
import static io.junction.conformance.security.SecuredHttp.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;

/**
 * The isolation matrix: tenants acme and globex, all five protocols. Each protocol publishes one message of acme to
 * topic {@code matrix}, globex publishes one of its own; then every protocol's receiver of each tenant counts: acme's
 * see exactly acme's five (from every publisher), globex's exactly its one. Cross-tenant attempts by name (a globex
 * client claiming namespace acme, or spelling {@code acme%matrix}) are refused on every protocol that lets a client
 * spell a namespace, and listings (Remoting topic list, HTTP subscriptions) show nothing of the other tenant.
 */
@WithBroker(settings = {SecurityCast.ON, SecurityCast.KEY_SETTING, SecurityCast.MQTT_TIMEOUT,
        "security.max-failures=1000"}, seed = SecurityCast.class)
class TenantMatrixIT {

    private static final String TOPIC = "matrix";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ClientServiceProvider GRPC = ClientServiceProvider.loadService();

    static {
        System.setProperty("rocketmq.log.root", System.getProperty("java.io.tmpdir") + "/junction-grpc-client-logs");
    }

    @Test
    void everyProtocolOfATenantMeetsOnlyItsOwnTenant(final RunningBroker broker) throws Exception {
        final String alice = basic("alice", "alice-pw");
        final String bob = basic("bob", "bob-pw");
        // Receivers that start at "now" exist before anything is published.
        final Mqtt5BlockingClient acmeMqtt = mqttClient(broker, "andy");
        final Mqtt5BlockingClient globexMqtt = mqttClient(broker, "bob");
        for (String[] u : new String[][] {{alice, "acme"}, {bob, "globex"}}) {
            assertThat(http(broker, "PUT", "/subscriptions/matrix-pull", u[0], "application/json",
                    "{\"topic\":\"" + TOPIC + "\"}", Map.of()).statusCode()).as(u[1]).isEqualTo(201);
        }
        try (var acmeIn = acmeMqtt.publishes(MqttGlobalPublishFilter.ALL);
             var globexIn = globexMqtt.publishes(MqttGlobalPublishFilter.ALL)) {
            acmeMqtt.subscribeWith().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).send();
            globexMqtt.subscribeWith().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).send();

            // ---- publish: one acme message per protocol, one globex message
            final DefaultMQProducer remoting = new DefaultMQProducer("matrix-pg",
                    new AclClientRPCHook(new SessionCredentials("alice", "alice-secret")));
            remoting.setNamespace("acme");
            remoting.setNamesrvAddr("127.0.0.1:" + broker.port("remoting.port"));
            remoting.setInstanceName("matrix-" + System.nanoTime());
            remoting.start();
            try {
                remoting.send(new Message(TOPIC, "remoting".getBytes(StandardCharsets.UTF_8)));
            } finally {
                // Here and below: one-off clients (each consumer of a group of its own); no need to wait for
                // the client's idle last step.
                RemotingClientShutdown.inBackground(remoting::shutdown);
            }
            try (Producer grpc = GRPC.newProducerBuilder()
                    .setClientConfiguration(grpcConfig(broker, "acme", "alice")).setTopics(TOPIC).build()) {
                grpc.send(GRPC.newMessageBuilder().setTopic(TOPIC)
                        .setBody("grpc".getBytes(StandardCharsets.UTF_8)).build());
            }
            final Mqtt5BlockingClient pub = mqttClient(broker, "alice");
            pub.publishWith().topic(TOPIC).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("mqtt".getBytes(StandardCharsets.UTF_8)).send();
            pub.disconnect();
            try (Connection c = new JmsConnectionFactory(broker.amqpUri()).createConnection("alice", "alice-pw")) {
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createProducer(s.createTopic(TOPIC)).send(s.createTextMessage("amqp"));
            }
            assertThat(http(broker, "POST", "/topics/" + TOPIC, alice, "text/plain", "http",
                    Map.of("ce-id", "m1", "ce-source", "/matrix", "ce-type", "t", "ce-specversion", "1.0"))
                    .statusCode()).isEqualTo(202);
            final Mqtt5BlockingClient bobPub = mqttClient(broker, "bob");
            bobPub.publishWith().topic(TOPIC).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("globex".getBytes(StandardCharsets.UTF_8)).send();
            bobPub.disconnect();

            // ---- cross-tenant attempts by name are refused
            final DefaultMQProducer intruder = new DefaultMQProducer("matrix-x",
                    new AclClientRPCHook(new SessionCredentials("bob", "bob-secret")));
            intruder.setNamespace("acme");
            intruder.setNamesrvAddr("127.0.0.1:" + broker.port("remoting.port"));
            intruder.setInstanceName("matrix-x-" + System.nanoTime());
            intruder.setRetryTimesWhenSendFailed(0);
            intruder.setSendMsgTimeout(5000);
            intruder.start();
            try {
                assertThatThrownBy(() -> intruder.send(new Message(TOPIC, "x".getBytes(StandardCharsets.UTF_8))))
                        .as("Remoting: globex claiming namespace acme").isNotNull();
            } finally {
                RemotingClientShutdown.inBackground(intruder::shutdown);
            }
            assertThatThrownBy(() -> {
                try (Producer p = GRPC.newProducerBuilder().setClientConfiguration(grpcConfig(broker, "acme",
                        "bob")).setTopics(TOPIC).build()) {
                    p.send(GRPC.newMessageBuilder().setTopic(TOPIC).setBody(new byte[] {1}).build());
                }
            }).as("gRPC: globex claiming namespace acme")
                    .isInstanceOfAny(ClientException.class, IllegalStateException.class); // the start-up route

            // ---- receive: every protocol of each tenant
            final List<String> acme = List.of("amqp", "grpc", "http", "mqtt", "remoting");
            final List<String> globex = List.of("globex");
            assertThat(mqttBodies(acmeIn, 5)).as("acme MQTT").containsExactlyInAnyOrderElementsOf(acme);
            assertThat(mqttBodies(globexIn, 1)).as("globex MQTT").containsExactlyElementsOf(globex);
            assertThat(remotingBodies(broker, "andy", "acme", 5)).as("acme Remoting")
                    .containsExactlyInAnyOrderElementsOf(acme);
            assertThat(remotingBodies(broker, "bob", "globex", 1)).as("globex Remoting")
                    .containsExactlyElementsOf(globex);
            assertThat(grpcBodies(broker, "andy", "acme", 5)).as("acme gRPC")
                    .containsExactlyInAnyOrderElementsOf(acme);
            assertThat(grpcBodies(broker, "bob", "globex", 1)).as("globex gRPC")
                    .containsExactlyElementsOf(globex);
            assertThat(jmsBodies(broker, "andy", 5)).as("acme JMS").containsExactlyInAnyOrderElementsOf(acme);
            assertThat(jmsBodies(broker, "bob", 1)).as("globex JMS").containsExactlyElementsOf(globex);
            assertThat(httpBodies(broker, alice, 5)).as("acme HTTP").containsExactlyInAnyOrderElementsOf(acme);
            assertThat(httpBodies(broker, bob, 1)).as("globex HTTP").containsExactlyElementsOf(globex);
            // Nothing more arrived at the MQTT receivers meanwhile.
            assertThat(acmeIn.receive(500, TimeUnit.MILLISECONDS)).isEmpty();
            assertThat(globexIn.receive(500, TimeUnit.MILLISECONDS)).isEmpty();
        } finally {
            acmeMqtt.disconnect();
            globexMqtt.disconnect();
        }

        // ---- admin listings show nothing of the other tenant
        final DefaultMQAdminExt admin = new DefaultMQAdminExt(
                new AclClientRPCHook(new SessionCredentials("bob", "bob-secret")), 5000);
        admin.setNamesrvAddr("127.0.0.1:" + broker.port("remoting.port"));
        admin.setInstanceName("matrix-admin-" + System.nanoTime());
        admin.start();
        try {
            assertThat(admin.fetchAllTopicList().getTopicList()).contains("globex%" + TOPIC)
                    .noneMatch(t -> t.startsWith("acme%"));
        } finally {
            admin.shutdown();
        }
        assertThat(http(broker, "GET", "/subscriptions", bob, null, null, Map.of()).body())
                .contains("matrix-pull").doesNotContain("acme");
    }

    // ------------------------------------------------------------------------------------------------ clients

    private static Mqtt5BlockingClient mqttClient(final RunningBroker broker, final String user) {
        final Mqtt5BlockingClient c = Mqtt5Client.builder().identifier("matrix-" + user + "-" + System.nanoTime())
                .serverHost("127.0.0.1").serverPort(broker.port("mqtt.port")).simpleAuth().username(user)
                .password((user + "-pw").getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
        c.connect();
        return c;
    }

    private static List<String> mqttBodies(final Mqtt5BlockingClient.Mqtt5Publishes in, final int n) throws Exception {
        final List<String> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final Optional<Mqtt5Publish> p = in.receive(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(p).as("MQTT message %d of %d", i + 1, n).isPresent();
            got.add(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8));
        }
        return got;
    }

    private static List<String> remotingBodies(final RunningBroker broker, final String user, final String namespace,
                                               final int n) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("matrix-" + user,
                new AclClientRPCHook(new SessionCredentials(user, user + "-secret")));
        consumer.setNamespace(namespace);
        consumer.setNamesrvAddr("127.0.0.1:" + broker.port("remoting.port"));
        consumer.setInstanceName("matrix-c-" + System.nanoTime());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(TOPIC, "*");
        consumer.start();
        try {
            final List<String> got = new ArrayList<>();
            final long end = System.nanoTime() + WAIT.toNanos();
            while (got.size() < n && System.nanoTime() < end) {
                for (MessageExt m : consumer.poll(300)) {
                    got.add(new String(m.getBody(), StandardCharsets.UTF_8));
                }
            }
            final long quiet = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < quiet) {
                for (MessageExt m : consumer.poll(200)) {
                    got.add(new String(m.getBody(), StandardCharsets.UTF_8));
                }
            }
            return got;
        } finally {
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    private static ClientConfiguration grpcConfig(final RunningBroker broker, final String namespace,
                                                  final String user) {
        return ClientConfiguration.newBuilder().setEndpoints("127.0.0.1:" + broker.port("grpc.port"))
                .enableSsl(false).setRequestTimeout(Duration.ofSeconds(5)).setNamespace(namespace)
                .setCredentialProvider(new StaticSessionCredentialsProvider(user, user + "-secret")).build();
    }

    private static List<String> grpcBodies(final RunningBroker broker, final String user, final String namespace,
                                           final int n) throws Exception {
        try (SimpleConsumer consumer = GRPC.newSimpleConsumerBuilder()
                .setClientConfiguration(grpcConfig(broker, namespace, user))
                .setConsumerGroup("matrix-grpc-" + user).setAwaitDuration(Duration.ofSeconds(1))
                .setSubscriptionExpressions(Map.of(TOPIC, FilterExpression.SUB_ALL)).build()) {
            final List<String> got = new ArrayList<>();
            final long end = System.nanoTime() + WAIT.toNanos();
            while (got.size() < n && System.nanoTime() < end) {
                for (MessageView v : consumer.receive(16, Duration.ofSeconds(30))) {
                    got.add(StandardCharsets.UTF_8.decode(v.getBody()).toString());
                    consumer.ack(v);
                }
            }
            for (MessageView v : consumer.receive(16, Duration.ofSeconds(30))) {
                got.add(StandardCharsets.UTF_8.decode(v.getBody()).toString()); // nothing more
            }
            return got;
        }
    }

    private static List<String> jmsBodies(final RunningBroker broker, final String user, final int n)
            throws Exception {
        try (Connection c = new JmsConnectionFactory(broker.amqpUri()).createConnection(user, user + "-pw")) {
            c.start();
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            // A queue consumer of the topic: its group starts at the topic's first message.
            final MessageConsumer consumer = s.createConsumer(s.createQueue(TOPIC));
            final List<String> got = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                final jakarta.jms.Message m = consumer.receive(WAIT.toMillis());
                assertThat(m).as("JMS message %d of %d", i + 1, n).isNotNull();
                got.add(m instanceof TextMessage t ? t.getText()
                        : new String(m.getBody(byte[].class), StandardCharsets.UTF_8));
            }
            final jakarta.jms.Message extra = consumer.receive(1000);
            if (extra != null) {
                got.add("extra");
            }
            return got;
        }
    }

    private static List<String> httpBodies(final RunningBroker broker, final String authorization, final int n) {
        final List<String> got = new ArrayList<>();
        final long end = System.nanoTime() + WAIT.toNanos();
        final Pattern data = Pattern.compile("\"data(?:_base64)?\":\"([^\"]*)\"");
        while (got.size() < n && System.nanoTime() < end) {
            collect(http(broker, "POST", "/subscriptions/matrix-pull/receive?max=10&waitSeconds=1", authorization,
                    null, null, Map.of()), data, got);
        }
        collect(http(broker, "POST", "/subscriptions/matrix-pull/receive?max=10&waitSeconds=1", authorization, null,
                null, Map.of()), data, got);
        return got;
    }

    private static void collect(final HttpResponse<String> r, final Pattern data, final List<String> got) {
        assertThat(r.statusCode()).isEqualTo(200);
        final Matcher m = data.matcher(r.body());
        while (m.find()) {
            final String v = m.group(1);
            got.add(r.body().contains("\"data_base64\":\"" + v + "\"")
                    ? new String(java.util.Base64.getDecoder().decode(v), StandardCharsets.UTF_8) : v);
        }
    }
}
