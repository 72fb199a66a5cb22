package io.junction.conformance.security;

import static io.junction.conformance.security.SecuredHttp.basic;
import static io.junction.conformance.security.SecuredHttp.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import com.sun.net.httpserver.HttpServer;
import io.junction.conformance.support.AuditCounts;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.TransactionRolledBackException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An administrator's rule change reaches clients that are already connected, at once, with the real clients: Qpid
 * JMS (named producers, the anonymous relay, transactions, consumers), HiveMQ and Paho MQTT, and CloudEvents push and
 * pull subscriptions. Each test takes a permission away through the admin API while connected, sees the next operation
 * refused, gives it back and sees the next one served; and a deleted or disabled user's open connection is closed.
 * Every test has a user of its own (tenant {@code acme}), so the tests never change each other's rules.
 */
@WithBroker(settings = {SecurityCast.ON, SecurityCast.KEY_SETTING, SecurityCast.MQTT_TIMEOUT,
        "security.max-failures=1000"}, seed = SecurityCast.class)
class LiveRuleChangeIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String ROOT = basic("root", "root-pw");
    private static final String EVERYTHING = rules("Topic:*=PUB,SUB", "Group:*=ALL");
    private static final AtomicInteger SEQ = new AtomicInteger();

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    // ------------------------------------------------------------------------------------------------ admin API

    private static String unique(final String prefix) {
        return prefix + "-" + SEQ.incrementAndGet() + "-" + Long.toString(System.nanoTime() & 0xFFFFF, 36);
    }

    /** A rules document: each entry {@code Resource=ACTION,ACTION} allows those actions. */
    private static String rules(final String... entries) {
        final List<String> json = new ArrayList<>();
        for (final String e : entries) {
            final String[] parts = e.split("=");
            json.add("{\"resource\":\"" + parts[0] + "\",\"actions\":[\"" + String.join("\",\"", parts[1].split(","))
                    + "\"],\"decision\":\"ALLOW\"}");
        }
        return "{\"rules\":[" + String.join(",", json) + "]}";
    }

    /** A new user of tenant acme (password {@code <name>-pw}) with {@code rules}. */
    private static String user(final String prefix, final String rules) {
        final String name = unique(prefix);
        assertThat(admin("PUT", "/admin/users/" + name, "{\"namespace\":\"acme\",\"password\":\"" + name + "-pw\"}")
                .statusCode()).isEqualTo(201);
        setRules(name, rules);
        return name;
    }

    private static void setRules(final String name, final String rules) {
        final HttpResponse<String> r = admin("PUT", "/admin/users/" + name + "/acl", rules);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static HttpResponse<String> admin(final String method, final String path, final String body) {
        return http(broker, method, path, ROOT, body == null ? null : "application/json", body, Map.of());
    }

    private static double denials(final String kind, final String action) {
        return AuditCounts.denials(broker, kind, action);
    }

    // ------------------------------------------------------------------------------------------------ AMQP

    private static Connection jms(final String user) throws JMSException {
        final Connection c = new JmsConnectionFactory(broker.amqpUri()).createConnection(user, user + "-pw");
        c.start();
        return c;
    }

    private static List<String> receive(final MessageConsumer consumer, final int n) throws JMSException {
        final List<String> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final Message m = consumer.receive(WAIT.toMillis());
            assertThat(m).as("message %d of %d (so far %s)", i + 1, n, got).isNotNull();
            got.add(((TextMessage) m).getText());
        }
        return got;
    }

    @Test
    void amqpProducersAreRefusedTheNextSendOnceTheirPubIsTakenAwayAndServedOnceItIsBack() throws Exception {
        final String user = user("amqp-pub", EVERYTHING);
        final String queue = unique("live-q");
        final String other = unique("live-other");
        try (Connection c = jms(user)) {
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue q = s.createQueue(queue);
            final MessageProducer named = s.createProducer(q);
            final MessageProducer relay = s.createProducer(null); // the anonymous relay
            named.send(s.createTextMessage("named-before"));
            relay.send(q, s.createTextMessage("relay-before"));

            setRules(user, rules("Topic:*=SUB", "Topic:" + other + "=PUB", "Group:*=ALL"));
            assertThatThrownBy(() -> named.send(s.createTextMessage("named-refused")))
                    .isInstanceOf(JMSSecurityException.class).hasMessageContaining("not allowed to send");
            assertThatThrownBy(() -> relay.send(q, s.createTextMessage("relay-refused")))
                    .isInstanceOf(JMSSecurityException.class).hasMessageContaining("not allowed to send");
            relay.send(s.createQueue(other), s.createTextMessage("still allowed")); // the relay stays usable

            setRules(user, EVERYTHING);
            named.send(s.createTextMessage("named-after"));
            relay.send(q, s.createTextMessage("relay-after"));

            // Each producer keeps to one queue of the topic and a queue is read in order: what was refused between
            // "before" and "after" would come between them.
            final MessageConsumer consumer = s.createConsumer(q);
            final List<String> got = receive(consumer, 4);
            assertThat(got).containsExactlyInAnyOrder("named-before", "relay-before", "named-after", "relay-after");
            assertThat(got.indexOf("named-before")).isLessThan(got.indexOf("named-after"));
            assertThat(got.indexOf("relay-before")).isLessThan(got.indexOf("relay-after"));
            assertThat(consumer.receive(1_000)).as("nothing refused was stored").isNull();
            assertThat(receive(s.createConsumer(s.createQueue(other)), 1)).containsExactly("still allowed");
        }
    }

    @Test
    void amqpTransactionWithARefusedSendRollsBackAndTheNextOneCommits() throws Exception {
        final String user = user("amqp-tx", EVERYTHING);
        final String queue = unique("live-tx");
        try (Connection c = jms(user)) {
            final Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            final Queue q = tx.createQueue(queue);
            final MessageProducer producer = tx.createProducer(q);
            producer.send(tx.createTextMessage("tx-before"));
            tx.commit();

            setRules(user, rules("Topic:*=SUB", "Group:*=ALL"));
            producer.send(tx.createTextMessage("tx-refused")); // transacted sends do not wait for their outcome
            assertThatThrownBy(tx::commit).isInstanceOf(TransactionRolledBackException.class);

            setRules(user, EVERYTHING);
            producer.send(tx.createTextMessage("tx-after"));
            tx.commit();

            final Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer consumer = plain.createConsumer(plain.createQueue(queue));
            assertThat(receive(consumer, 2)).containsExactly("tx-before", "tx-after");
            assertThat(consumer.receive(1_000)).as("nothing of the refused transaction was stored").isNull();
        }
    }

    @Test
    void amqpConsumerIsDetachedOnceItsSubIsTakenAwayAndANewOneAttachesOnceItIsBack() throws Exception {
        final String user = user("amqp-sub", EVERYTHING);
        final String queue = unique("live-c");
        try (Connection reader = jms(user); Connection writer = jms("alice")) {
            final Session rs = reader.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Session ws = writer.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = ws.createProducer(ws.createQueue(queue));
            final MessageConsumer consumer = rs.createConsumer(rs.createQueue(queue));
            producer.send(ws.createTextMessage("c-1"));
            assertThat(receive(consumer, 1)).containsExactly("c-1");

            setRules(user, rules("Topic:*=PUB", "Group:*=ALL"));
            // The broker detaches the link (amqp:unauthorized-access): the client closes the consumer.
            await().atMost(WAIT).untilAsserted(() -> assertThatThrownBy(consumer::receiveNoWait)
                    .isInstanceOf(JMSException.class));
            producer.send(ws.createTextMessage("c-2")); // kept for whoever may read the queue
            assertThatThrownBy(() -> rs.createConsumer(rs.createQueue(queue)))
                    .isInstanceOf(JMSSecurityException.class);

            setRules(user, EVERYTHING);
            assertThat(receive(rs.createConsumer(rs.createQueue(queue)), 1)).containsExactly("c-2");
        }
    }

    @Test
    void amqpConnectionOfADeletedUserIsClosedWithUnauthorizedAccess() throws Exception {
        final String user = user("amqp-gone", EVERYTHING);
        final List<JMSException> failures = new CopyOnWriteArrayList<>();
        try (Connection c = jms(user)) {
            c.setExceptionListener(failures::add);
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = s.createProducer(s.createQueue(unique("live-d")));
            producer.send(s.createTextMessage("while the user exists"));

            assertThat(admin("DELETE", "/admin/users/" + user, null).statusCode()).isEqualTo(200);
            // the CLOSE's amqp:unauthorized-access (the transport's end may be reported after it)
            await().atMost(WAIT).until(() -> failures.stream().anyMatch(JMSSecurityException.class::isInstance));
            assertThatThrownBy(() -> producer.send(s.createTextMessage("after"))).isInstanceOf(JMSException.class);
        }
    }

    // ------------------------------------------------------------------------------------------------ MQTT

    private static Mqtt5BlockingClient mqtt(final String user, final List<Throwable> disconnects) {
        final Mqtt5BlockingClient c = Mqtt5Client.builder().identifier(unique("live")).serverHost("127.0.0.1")
                .serverPort(broker.port("mqtt.port"))
                .addDisconnectedListener(context -> disconnects.add(context.getCause()))
                .simpleAuth().username(user).password((user + "-pw").getBytes(StandardCharsets.UTF_8))
                .applySimpleAuth().buildBlocking();
        c.connectWith().cleanStart(true).send();
        return c;
    }

    private static String next(final Mqtt5BlockingClient.Mqtt5Publishes in) throws InterruptedException {
        final Optional<Mqtt5Publish> p = in.receive(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(p).as("a message within %s", WAIT).isPresent();
        return new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    private static void publish(final Mqtt5BlockingClient client, final String topic, final String text) {
        client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(text.getBytes(StandardCharsets.UTF_8))
                .send();
    }

    @Test
    void mqttSubscriptionStopsDeliveringWithoutSubAndResumesWithIt() throws Exception {
        final String user = user("mqtt-sub", EVERYTHING);
        final String topic = unique("live") + "/sensor";
        final List<Throwable> disconnects = new CopyOnWriteArrayList<>();
        final Mqtt5BlockingClient subscriber = mqtt(user, disconnects);
        final Mqtt5BlockingClient publisher = mqtt("alice", disconnects);
        try (var in = subscriber.publishes(MqttGlobalPublishFilter.ALL)) {
            subscriber.subscribeWith().topicFilter(topic).qos(MqttQos.AT_LEAST_ONCE).send();
            publish(publisher, topic, "m-1");
            assertThat(next(in)).isEqualTo("m-1");

            setRules(user, rules("Topic:*=PUB", "Group:*=ALL"));
            publish(publisher, topic, "m-2"); // stored: alice may publish; not for the subscriber now
            setRules(user, EVERYTHING);
            publish(publisher, topic, "m-3");
            // One publisher's messages to one topic keep their order: m-2, had it been delivered, would come first.
            assertThat(next(in)).isEqualTo("m-3");
            assertThat(in.receive(1_000, TimeUnit.MILLISECONDS)).as("m-2 never comes").isEmpty();
            assertThat(subscriber.getState().isConnected()).as("the subscription stayed; so did the session")
                    .isTrue();
        } finally {
            subscriber.disconnect();
            publisher.disconnect();
        }
    }

    @Test
    void mqttPublishIsRefusedOnceItsPubIsTakenAwayAndAcceptedOnceItIsBack() {
        final String user = user("mqtt-pub", EVERYTHING);
        final String topic = unique("live") + "/cmd";
        final Mqtt5BlockingClient client = mqtt(user, new CopyOnWriteArrayList<>());
        try {
            publish(client, topic, "p-1");
            setRules(user, rules("Topic:*=SUB", "Group:*=ALL"));
            assertThatThrownBy(() -> publish(client, topic, "p-2")).isInstanceOfSatisfying(
                    Mqtt5PubAckException.class, e -> assertThat(e.getMqttMessage().getReasonCode())
                            .isEqualTo(Mqtt5PubAckReasonCode.NOT_AUTHORIZED));
            setRules(user, EVERYTHING);
            publish(client, topic, "p-3");
            assertThat(client.getState().isConnected()).isTrue();
        } finally {
            client.disconnect();
        }
    }

    @Test
    void mqttConnectionsOfADeletedOrDisabledUserAreClosed() throws Exception {
        final String deleted = user("mqtt-gone", EVERYTHING);
        final List<Throwable> disconnects = new CopyOnWriteArrayList<>();
        final Mqtt5BlockingClient v5 = mqtt(deleted, disconnects);
        assertThat(admin("DELETE", "/admin/users/" + deleted, null).statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> !disconnects.isEmpty());
        assertThat(disconnects.get(0)).isInstanceOfSatisfying(Mqtt5DisconnectException.class, e ->
                assertThat(e.getMqttMessage().getReasonCode())
                        .isEqualTo(Mqtt5DisconnectReasonCode.ADMINISTRATIVE_ACTION));
        assertThat(v5.getState().isConnected()).isFalse();

        final String disabled = user("mqtt-off", EVERYTHING);
        final List<Throwable> lost = new CopyOnWriteArrayList<>();
        final MqttClient paho = new MqttClient(broker.mqttUri(), unique("paho"), new MemoryPersistence());
        paho.setCallback(new MqttCallback() {
            @Override
            public void connectionLost(final Throwable cause) {
                lost.add(cause);
            }

            @Override
            public void messageArrived(final String topic, final MqttMessage message) {
            }

            @Override
            public void deliveryComplete(final IMqttDeliveryToken token) {
            }
        });
        final MqttConnectOptions options = new MqttConnectOptions();
        options.setUserName(disabled);
        options.setPassword((disabled + "-pw").toCharArray());
        paho.connect(options);
        assertThat(admin("PUT", "/admin/users/" + disabled, "{\"enabled\":false}").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> !lost.isEmpty());
        assertThat(paho.isConnected()).isFalse();
        paho.close();
    }

    // ------------------------------------------------------------------------------------------------ CloudEvents

    private static HttpResponse<String> publishEvent(final String topic, final String id) {
        return http(broker, "POST", "/topics/" + topic, basic("alice", "alice-pw"), "text/plain", id,
                Map.of("ce-id", id, "ce-source", "/live", "ce-type", "t", "ce-specversion", "1.0"));
    }

    @Test
    void cloudEventsPushPausesWhileItsOwnerLacksSubAndDeliversWhatWaitedOnceItIsBack() throws Exception {
        final String owner = user("ce-push", EVERYTHING);
        final String topic = unique("live-ce");
        final List<String> pushed = new CopyOnWriteArrayList<>();
        final HttpServer sink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sink.createContext("/", exchange -> {
            pushed.add(exchange.getRequestHeaders().getFirst("ce-id"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        sink.start();
        try {
            final String auth = basic(owner, owner + "-pw");
            assertThat(http(broker, "PUT", "/subscriptions/" + unique("push"), auth, "application/json",
                    "{\"topic\":\"" + topic + "\",\"sink\":\"http://127.0.0.1:" + sink.getAddress().getPort()
                            + "/sink\"}", Map.of()).statusCode()).isEqualTo(201);
            assertThat(publishEvent(topic, "e-1").statusCode()).isEqualTo(202);
            await().atMost(WAIT).until(() -> pushed.contains("e-1"));

            final double before = denials("TOPIC", "SUB");
            setRules(owner, rules("Topic:*=PUB", "Group:*=ALL"));
            assertThat(publishEvent(topic, "e-2").statusCode()).isEqualTo(202);
            // the dispatcher took e-2 and asked on the owner's behalf: refused, counted, not pushed
            await().atMost(WAIT).until(() -> denials("TOPIC", "SUB") > before);
            assertThat(pushed).containsExactly("e-1");

            setRules(owner, EVERYTHING);
            await().atMost(WAIT).until(() -> pushed.contains("e-2"));
            assertThat(pushed).containsExactly("e-1", "e-2");
        } finally {
            sink.stop(0);
        }
    }

    @Test
    void cloudEventsPullReceiveIsRefusedWithoutSubAndServedOnceItIsBack() throws Exception {
        final String user = user("ce-pull", EVERYTHING);
        final String auth = basic(user, user + "-pw");
        final String name = unique("pull");
        final String topic = unique("live-pull");
        assertThat(http(broker, "PUT", "/subscriptions/" + name, auth, "application/json",
                "{\"topic\":\"" + topic + "\"}", Map.of()).statusCode()).isEqualTo(201);
        // A receive waiting for events while SUB is taken away: refused, and the event stays for later.
        final CompletableFuture<HttpResponse<String>> waiting = HttpClient.newHttpClient().sendAsync(HttpRequest
                .newBuilder(URI.create(broker.httpBase() + "/subscriptions/" + name
                        + "/receive?waitSeconds=20")).header("Authorization", auth)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        setRules(user, rules("Topic:*=PUB", "Group:*=ALL"));
        assertThat(publishEvent(topic, "p-1").statusCode()).isEqualTo(202);
        assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(403);
        assertThat(http(broker, "POST", "/subscriptions/" + name + "/receive", auth, null, null, Map.of())
                .statusCode()).isEqualTo(403);

        setRules(user, EVERYTHING);
        final HttpResponse<String> served = http(broker, "POST", "/subscriptions/" + name
                + "/receive?waitSeconds=5", auth, null, null, Map.of());
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).contains("\"id\":\"p-1\"");
    }
}
