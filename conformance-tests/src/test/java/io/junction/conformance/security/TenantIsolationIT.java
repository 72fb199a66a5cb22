package io.junction.conformance.security;

import static io.junction.conformance.security.SecuredHttp.basic;
import static io.junction.conformance.security.SecuredHttp.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAckReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttSecurityException;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Security on, MQTT, AMQP (Qpid JMS) and HTTP (CloudEvents, admin API) with real clients: bad credentials are refused
 * with each protocol's signal, tenants acme and globex use the same names without meeting (counts asserted, nothing
 * leaks), a tenant's protocols meet each other, and a deny rule overrides an allow.
 */
@WithBroker(settings = {SecurityCast.ON, SecurityCast.KEY_SETTING, SecurityCast.MQTT_TIMEOUT,
        "security.max-failures=1000"}, seed = SecurityCast.class)
class TenantIsolationIT {

    private static final long QUIET_MS = 1_500;

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    // ------------------------------------------------------------------------------------------------ MQTT

    private static Mqtt5BlockingClient mqtt(final String id, final String user) {
        final Mqtt5BlockingClient c = Mqtt5Client.builder().identifier(id).serverHost("127.0.0.1")
                .serverPort(broker.port("mqtt.port")).simpleAuth().username(user)
                .password((user + "-pw").getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
        c.connectWith().cleanStart(true).send();
        return c;
    }

    private static List<String> receive(final Mqtt5BlockingClient.Mqtt5Publishes in, final int n) throws Exception {
        final List<String> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final Optional<Mqtt5Publish> p = in.receive(20, TimeUnit.SECONDS);
            assertThat(p).as("message %d of %d", i + 1, n).isPresent();
            got.add(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8));
        }
        return got;
    }

    private static void assertNothing(final Mqtt5BlockingClient.Mqtt5Publishes in) throws Exception {
        final Optional<Mqtt5Publish> p = in.receive(QUIET_MS, TimeUnit.MILLISECONDS);
        assertThat(p.map(x -> x.getTopic() + " " + new String(x.getPayloadAsBytes(), StandardCharsets.UTF_8)))
                .as("a message that should not arrive").isEmpty();
    }

    @Test
    void mqttRefusesBadCredentialsWithTheProtocolsCodes() throws Exception {
        final Mqtt5BlockingClient wrong = Mqtt5Client.builder().identifier("w1").serverHost("127.0.0.1")
                .serverPort(broker.port("mqtt.port")).simpleAuth().username("alice")
                .password("guess".getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
        assertThatThrownBy(wrong::connect).isInstanceOfSatisfying(Mqtt5ConnAckException.class, e ->
                assertThat(e.getMqttMessage().getReasonCode())
                        .isEqualTo(Mqtt5ConnAckReasonCode.BAD_USER_NAME_OR_PASSWORD));
        final Mqtt5BlockingClient none = Mqtt5Client.builder().identifier("w2").serverHost("127.0.0.1")
                .serverPort(broker.port("mqtt.port")).buildBlocking();
        assertThatThrownBy(none::connect).isInstanceOfSatisfying(Mqtt5ConnAckException.class, e ->
                assertThat(e.getMqttMessage().getReasonCode())
                        .isEqualTo(Mqtt5ConnAckReasonCode.BAD_USER_NAME_OR_PASSWORD));
        final Mqtt5BlockingClient percent = Mqtt5Client.builder().identifier("acme%dev1").serverHost("127.0.0.1")
                .serverPort(broker.port("mqtt.port")).simpleAuth().username("bob")
                .password("bob-pw".getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
        assertThatThrownBy(percent::connect).isInstanceOfSatisfying(Mqtt5ConnAckException.class, e ->
                assertThat(e.getMqttMessage().getReasonCode())
                        .isEqualTo(Mqtt5ConnAckReasonCode.CLIENT_IDENTIFIER_NOT_VALID));

        final MqttClient paho = new MqttClient(broker.mqttUri(), "w3", new MemoryPersistence());
        final MqttConnectOptions options = new MqttConnectOptions();
        options.setUserName("alice");
        options.setPassword("guess".toCharArray());
        assertThatThrownBy(() -> paho.connect(options)).isInstanceOfSatisfying(MqttSecurityException.class, e ->
                assertThat(e.getReasonCode()).isEqualTo(4)); // 3.1.1: bad user name or password
        paho.close();
    }

    @Test
    void mqttTenantsShareNamesWithoutMeeting() throws Exception {
        // Same client id in both tenants: two sessions, no take-over.
        final Mqtt5BlockingClient aliceSub = mqtt("dev1", "alice");
        final Mqtt5BlockingClient bobSub = mqtt("dev1", "bob");
        try (var aliceIn = aliceSub.publishes(MqttGlobalPublishFilter.ALL);
             var bobIn = bobSub.publishes(MqttGlobalPublishFilter.ALL)) {
            aliceSub.subscribeWith().topicFilter("orders/#").qos(MqttQos.AT_LEAST_ONCE).send();
            bobSub.subscribeWith().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).send();
            final Mqtt5BlockingClient andy = mqtt("pub-a", "andy");
            final Mqtt5BlockingClient bob = mqtt("pub-b", "bob");
            for (int i = 0; i < 5; i++) {
                andy.publishWith().topic("orders/eu").qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("a-" + i).getBytes(StandardCharsets.UTF_8)).send();
            }
            for (int i = 0; i < 3; i++) {
                bob.publishWith().topic("orders/eu").qos(MqttQos.AT_LEAST_ONCE)
                        .payload(("b-" + i).getBytes(StandardCharsets.UTF_8)).send();
            }
            assertThat(receive(aliceIn, 5)).containsExactly("a-0", "a-1", "a-2", "a-3", "a-4");
            assertThat(receive(bobIn, 3)).containsExactly("b-0", "b-1", "b-2");
            assertNothing(aliceIn);
            assertNothing(bobIn);
            assertThat(aliceSub.getState().isConnected()).isTrue();
            assertThat(bobSub.getState().isConnected()).isTrue();

            // Retained messages are per tenant too.
            andy.publishWith().topic("status").retain(true).qos(MqttQos.AT_LEAST_ONCE)
                    .payload("acme-up".getBytes(StandardCharsets.UTF_8)).send();
            final Mqtt5BlockingClient bobLate = mqtt("late-b", "bob");
            final Mqtt5BlockingClient aliceLate = mqtt("late-a", "alice");
            try (var bobLateIn = bobLate.publishes(MqttGlobalPublishFilter.ALL);
                 var aliceLateIn = aliceLate.publishes(MqttGlobalPublishFilter.ALL)) {
                bobLate.subscribeWith().topicFilter("status").send();
                aliceLate.subscribeWith().topicFilter("status").send();
                assertThat(receive(aliceLateIn, 1)).containsExactly("acme-up");
                assertNothing(bobLateIn);
            }
            bobLate.disconnect();
            aliceLate.disconnect();
            andy.disconnect();
            bob.disconnect();
        } finally {
            aliceSub.disconnect();
            bobSub.disconnect();
        }
    }

    @Test
    void aDenyRuleOverridesAnAllow() throws Exception {
        final Mqtt5BlockingClient carol = mqtt("carol-1", "carol");
        try {
            assertThatThrownBy(() -> carol.subscribeWith().topicFilter("secret/#").send())
                    .isInstanceOfSatisfying(Mqtt5SubAckException.class, e ->
                            assertThat(e.getMqttMessage().getReasonCodes())
                                    .containsExactly(Mqtt5SubAckReasonCode.NOT_AUTHORIZED));
            assertThat(carol.subscribeWith().topicFilter("public/#").send().getReasonCodes())
                    .containsExactly(Mqtt5SubAckReasonCode.GRANTED_QOS_2);
            // Publishing to the topic is still allowed.
            carol.publishWith().topic("secret/x").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("p".getBytes(StandardCharsets.UTF_8)).send();
        } finally {
            carol.disconnect();
        }
        final HttpResponse<String> put = http(broker, "PUT", "/subscriptions/carol-secret",
                basic("carol", "carol-pw"), "application/json", "{\"topic\":\"secret\"}", Map.of());
        assertThat(put.statusCode()).isEqualTo(403);
        assertThat(put.body()).contains("'secret'").doesNotContain("acme%");
    }

    // ------------------------------------------------------------------------------------------------ AMQP

    private static Connection jms(final String user, final String password) throws JMSException {
        final JmsConnectionFactory f = new JmsConnectionFactory(broker.amqpUri());
        final Connection c = password == null ? f.createConnection() : f.createConnection(user, password);
        c.start();
        return c;
    }

    @Test
    void jmsRefusesBadCredentialsAndAnonymousClients() {
        assertThatThrownBy(() -> jms("alice", "guess").close()).isInstanceOf(JMSSecurityException.class);
        assertThatThrownBy(() -> jms(null, null).close()).isInstanceOf(JMSException.class);
    }

    @Test
    void jmsQueuesAreTenantLocalAndMeetTheTenantsMqtt() throws Exception {
        final Mqtt5BlockingClient andyMqtt = mqtt("jobs-watch", "andy");
        try (var mqttIn = andyMqtt.publishes(MqttGlobalPublishFilter.ALL);
             Connection alice = jms("alice", "alice-pw");
             Connection bob = jms("bob", "bob-pw");
             Connection andy = jms("andy", "andy-pw")) {
            andyMqtt.subscribeWith().topicFilter("jobs").qos(MqttQos.AT_LEAST_ONCE).send();
            final Session bs = bob.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer bobConsumer = bs.createConsumer(bs.createQueue("jobs"));
            final Session as = alice.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = as.createProducer(as.createQueue("jobs"));
            for (int i = 0; i < 4; i++) {
                producer.send(as.createTextMessage("job-" + i));
            }
            final Session ns = andy.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer andyConsumer = ns.createConsumer(ns.createQueue("jobs"));
            final List<String> got = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                final TextMessage m = (TextMessage) andyConsumer.receive(20_000);
                assertThat(m).as("job %d", i).isNotNull();
                got.add(m.getText());
            }
            assertThat(got).containsExactly("job-0", "job-1", "job-2", "job-3");
            assertThat(receive(mqttIn, 4)).containsExactly("job-0", "job-1", "job-2", "job-3");
            assertThat(bobConsumer.receive(QUIET_MS)).as("globex's queue of the same name").isNull();
        } finally {
            andyMqtt.disconnect();
        }
    }

    // ------------------------------------------------------------------------------------------------ HTTP

    private static HttpResponse<String> post(final String topic, final String authorization, final String id) {
        return http(broker, "POST", "/topics/" + topic, authorization, "text/plain", "event " + id,
                Map.of("ce-id", id, "ce-source", "/it", "ce-type", "it.event", "ce-specversion", "1.0"));
    }

    @Test
    void httpAuthenticatesAndKeepsTenantsApart() {
        assertThat(post("news", null, "n0").statusCode()).isEqualTo(401);
        assertThat(post("news", null, "n0").headers().firstValue("WWW-Authenticate")).get().asString()
                .contains("Basic");
        assertThat(post("news", basic("alice", "guess"), "n0").statusCode()).isEqualTo(401);

        final String alice = basic("alice", "alice-pw");
        final String bob = basic("bob", "bob-pw");
        final HttpResponse<String> aliceSub = http(broker, "PUT", "/subscriptions/feed", alice, "application/json",
                "{\"topic\":\"news\"}", Map.of());
        assertThat(aliceSub.statusCode()).isEqualTo(201);
        assertThat(aliceSub.body()).contains("\"name\":\"feed\"").contains("\"topic\":\"news\"");
        assertThat(http(broker, "PUT", "/subscriptions/feed", bob, "application/json", "{\"topic\":\"news\"}",
                Map.of()).statusCode()).as("the same name in another tenant").isEqualTo(201);

        assertThat(post("news", alice, "a1").statusCode()).isEqualTo(202);
        assertThat(post("news", alice, "a2").statusCode()).isEqualTo(202);
        assertThat(post("news", bob, "b1").statusCode()).isEqualTo(202);

        // A bearer token issued by the super user through the admin API.
        final HttpResponse<String> token = http(broker, "POST", "/admin/users/alice/tokens",
                basic("root", "root-pw"), null, null, Map.of());
        assertThat(token.statusCode()).isEqualTo(201);
        final String bearer = "Bearer " + token.body().replaceAll(".*\"token\":\"([^\"]+)\".*", "$1");
        assertThat(post("news", bearer, "a3").statusCode()).isEqualTo(202);
        assertThat(post("news", "Bearer jt_not-a-token", "x").statusCode()).isEqualTo(401);

        final List<String> aliceIds = receiveIds(alice, 3);
        assertThat(aliceIds).containsExactlyInAnyOrder("a1", "a2", "a3");
        final List<String> bobIds = receiveIds(bob, 1);
        assertThat(bobIds).containsExactly("b1");

        final HttpResponse<String> list = http(broker, "GET", "/subscriptions", alice, null, null, Map.of());
        assertThat(list.body()).contains("\"name\":\"feed\"").doesNotContain("globex");
        assertThat(http(broker, "GET", "/admin/users", alice, null, null, Map.of()).statusCode())
                .as("only super users administer").isEqualTo(403);
        assertThat(http(broker, "GET", "/admin/users", basic("root", "root-pw"), null, null, Map.of())
                .body()).contains("\"name\":\"carol\"").doesNotContain("carol-pw").doesNotContain("Hash");
    }

    /** Pulls until {@code n} events came, then checks for a quiet second; returns their ids. */
    private static List<String> receiveIds(final String authorization, final int n) {
        final List<String> ids = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ids.size() < n && System.nanoTime() < deadline) {
            collect(http(broker, "POST", "/subscriptions/feed/receive?max=10&waitSeconds=1", authorization, null,
                    null, Map.of()), ids);
        }
        collect(http(broker, "POST", "/subscriptions/feed/receive?max=10&waitSeconds=1", authorization, null, null,
                Map.of()), ids);
        return ids;
    }

    private static void collect(final HttpResponse<String> r, final List<String> ids) {
        assertThat(r.statusCode()).isEqualTo(200);
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"id\":\"([^\"]+)\"").matcher(r.body());
        while (m.find()) {
            ids.add(m.group(1));
        }
    }

    @Test
    void auditCountersAreExposed() {
        assertThat(post("news", basic("nobody", "x"), "z").statusCode()).isEqualTo(401);
        final String metrics = http(broker, "GET", "/metrics", null, null, null, Map.of()).body();
        assertThat(metrics).contains("junction_auth_failures_total{protocol=\"http\",reason=\"unknown-user\"}");
    }
}
