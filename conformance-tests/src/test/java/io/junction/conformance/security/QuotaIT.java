package io.junction.conformance.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Namespace quotas set live through the admin API, refused with each protocol's own signal: MQTT 5 CONNACK and PUBACK
 * 0x97, AMQP amqp:resource-limit-exceeded (a JMSException on send), HTTP 429 with Retry-After. Another namespace is
 * not affected.
 */
class QuotaIT {

    private static SecuredBroker broker;

    @BeforeAll
    static void start() {
        broker = SecuredBroker.start(Map.of("security.max-failures", "1000"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static void quota(final String namespace, final String json) {
        final HttpResponse<String> r = broker.http("PUT", "/admin/quotas/" + namespace,
                SecuredBroker.basic("root", "root-pw"), "application/json", json, Map.of());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static Mqtt5BlockingClient client(final String id, final String user) {
        return Mqtt5Client.builder().identifier(id).serverHost("127.0.0.1").serverPort(broker.port("mqtt.port"))
                .simpleAuth().username(user).password((user + "-pw").getBytes(StandardCharsets.UTF_8))
                .applySimpleAuth().buildBlocking();
    }

    @Test
    void connectionQuotaRefusesTheOneTooManyWithQuotaExceeded() {
        quota("globex", "{\"maxConnections\": 2}");
        try {
            final Mqtt5BlockingClient first = client("c1", "bob");
            final Mqtt5BlockingClient second = client("c2", "bob");
            first.connect();
            second.connect();
            final Mqtt5BlockingClient third = client("c3", "bob");
            assertThatThrownBy(third::connect).isInstanceOfSatisfying(Mqtt5ConnAckException.class, e ->
                    assertThat(e.getMqttMessage().getReasonCode()).isEqualTo(Mqtt5ConnAckReasonCode.QUOTA_EXCEEDED));
            final Mqtt5BlockingClient other = client("c1", "alice");
            other.connect(); // acme has no connection quota
            other.disconnect();
            first.disconnect();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> {
                final Mqtt5BlockingClient again = client("c4", "bob");
                again.connect();
                again.disconnect();
            });
            second.disconnect();
        } finally {
            quota("globex", "{}");
        }
    }

    @Test
    void publishQuotaIsSharedByEveryProtocolOfTheNamespace() throws Exception {
        quota("acme", "{\"messagesPerSecond\": 5}");
        try {
            final Mqtt5BlockingClient mqtt = client("rate-1", "alice");
            mqtt.connect();
            int accepted = 0;
            final List<Mqtt5PubAckReasonCode> refusals = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                try {
                    mqtt.publishWith().topic("metered").qos(MqttQos.AT_LEAST_ONCE)
                            .payload(("m" + i).getBytes(StandardCharsets.UTF_8)).send();
                    accepted++;
                } catch (final Mqtt5PubAckException e) {
                    refusals.add(e.getMqttMessage().getReasonCode());
                }
            }
            mqtt.disconnect();
            // A burst of one second's budget, plus at most what refilled while the loop ran.
            assertThat(accepted).isBetween(5, 7);
            assertThat(refusals).isNotEmpty().allMatch(c -> c == Mqtt5PubAckReasonCode.QUOTA_EXCEEDED);

            final HttpResponse<String> limited = broker.http("POST", "/topics/metered",
                    SecuredBroker.basic("alice", "alice-pw"), "text/plain", "x",
                    Map.of("ce-id", "q1", "ce-source", "/it", "ce-type", "t", "ce-specversion", "1.0"));
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(Integer.parseInt(limited.headers().firstValue("Retry-After").orElseThrow())).isPositive();

            try (Connection c = new JmsConnectionFactory(broker.amqpUri()).createConnection("andy", "andy-pw")) {
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageProducer p = s.createProducer(s.createQueue("metered"));
                int jmsRefused = 0;
                for (int i = 0; i < 10; i++) {
                    try {
                        p.send(s.createTextMessage("j" + i));
                    } catch (final JMSException e) {
                        assertThat(e.getMessage()).contains("quota");
                        jmsRefused++;
                    }
                }
                assertThat(jmsRefused).as("10 sends at 5/s").isPositive();
            }

            // globex is not metered.
            final Mqtt5BlockingClient bob = client("rate-2", "bob");
            bob.connect();
            for (int i = 0; i < 20; i++) {
                bob.publishWith().topic("metered").qos(MqttQos.AT_LEAST_ONCE)
                        .payload("b".getBytes(StandardCharsets.UTF_8)).send();
            }
            bob.disconnect();
            final String metrics = broker.http("GET", "/metrics", null, null, null, Map.of()).body();
            assertThat(metrics).contains("junction_quota_refusals_total{refused=\"publish\"}");
        } finally {
            quota("acme", "{}");
        }
    }
}
