package io.junction.conformance.security;

import static io.junction.conformance.security.SecuredHttp.basic;
import static io.junction.conformance.security.SecuredHttp.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Namespace quotas set live through the admin API, refused with each protocol's own signal: MQTT 5 CONNACK and PUBACK
 * 0x97, AMQP amqp:resource-limit-exceeded (a JMSException on send), HTTP 429 with Retry-After. Another namespace is
 * not affected.
 */
@WithBroker(settings = {SecurityCast.ON, SecurityCast.KEY_SETTING, SecurityCast.MQTT_TIMEOUT,
        "security.max-failures=1000"}, seed = SecurityCast.class)
class QuotaIT {

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static void quota(final String namespace, final String json) {
        final HttpResponse<String> r = http(broker, "PUT", "/admin/quotas/" + namespace,
                basic("root", "root-pw"), "application/json", json, Map.of());
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
    void connectionQuotaHoldsForJmsAndGrpcClientsToo() throws Exception {
        quota("acme", "{\"maxConnections\": 1}");
        try {
            final JmsConnectionFactory factory = new JmsConnectionFactory(broker.amqpUri());
            try (Connection first = factory.createConnection("alice", "alice-pw")) {
                first.start();
                assertThatThrownBy(() -> factory.createConnection("andy", "andy-pw").start())
                        .as("a second acme connection").isInstanceOf(JMSException.class)
                        .hasMessageContaining("maximum number of connections");
            }
            final org.apache.rocketmq.client.apis.ClientServiceProvider grpc =
                    org.apache.rocketmq.client.apis.ClientServiceProvider.loadService();
            final org.apache.rocketmq.client.apis.ClientConfiguration config =
                    org.apache.rocketmq.client.apis.ClientConfiguration.newBuilder()
                            .setEndpoints("127.0.0.1:" + broker.port("grpc.port")).enableSsl(false)
                            .setNamespace("acme").setCredentialProvider(
                                    new org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider("alice",
                                            "alice-secret")).build();
            // The JMS connection is closed: its slot is free again, released when the broker sees its transport end,
            // a moment after the client's close returned. The producer holding the slot is the one that got it (a
            // producer built and closed first to see the slot free would hold it until its own transport ended).
            final java.util.concurrent.atomic.AtomicReference<org.apache.rocketmq.client.apis.producer.Producer>
                    holder = new java.util.concurrent.atomic.AtomicReference<>();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
                    holder.set(grpc.newProducerBuilder().setClientConfiguration(config).setTopics("slots").build()));
            try (org.apache.rocketmq.client.apis.producer.Producer one = holder.get()) {
                assertThatThrownBy(() -> grpc.newProducerBuilder().setClientConfiguration(config)
                        .setTopics("slots").build().close()).as("a second gRPC client of acme, its own connection")
                        .isInstanceOfAny(org.apache.rocketmq.client.apis.ClientException.class,
                                IllegalStateException.class);
                one.send(grpc.newMessageBuilder().setTopic("slots").setBody(new byte[] {1}).build());
            }
        } finally {
            quota("acme", "{}");
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
            for (int i = 0; i < 20; i++) {
                try {
                    mqtt.publishWith().topic("metered").qos(MqttQos.AT_LEAST_ONCE)
                            .payload(("m" + i).getBytes(StandardCharsets.UTF_8)).send();
                    accepted++;
                } catch (final Mqtt5PubAckException e) {
                    refusals.add(e.getMqttMessage().getReasonCode());
                }
            }
            mqtt.disconnect();
            // A burst of one second's budget, plus what refilled while the loop ran; then refusals.
            assertThat(accepted).isGreaterThanOrEqualTo(5).isLessThan(20);
            assertThat(refusals).isNotEmpty().allMatch(c -> c == Mqtt5PubAckReasonCode.QUOTA_EXCEEDED);

            HttpResponse<String> limited = null;
            for (int i = 0; i < 10 && limited == null; i++) {
                final HttpResponse<String> r = http(broker, "POST", "/topics/metered",
                        basic("alice", "alice-pw"), "text/plain", "x",
                        Map.of("ce-id", "q" + i, "ce-source", "/it", "ce-type", "t", "ce-specversion", "1.0"));
                assertThat(r.statusCode()).isIn(202, 429);
                limited = r.statusCode() == 429 ? r : null;
            }
            assertThat(limited).as("10 HTTP posts at 5/s").isNotNull();
            assertThat(Integer.parseInt(limited.headers().firstValue("Retry-After").orElseThrow())).isPositive();

            try (Connection c = new JmsConnectionFactory(broker.amqpUri()).createConnection("andy", "andy-pw")) {
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageProducer p = s.createProducer(s.createQueue("metered"));
                int jmsRefused = 0;
                for (int i = 0; i < 20; i++) {
                    try {
                        p.send(s.createTextMessage("j" + i));
                    } catch (final JMSException e) {
                        assertThat(e.getMessage()).contains("quota");
                        jmsRefused++;
                    }
                }
                assertThat(jmsRefused).as("20 sends at 5/s").isPositive();
            }

            final org.apache.rocketmq.client.producer.DefaultMQProducer remoting =
                    new org.apache.rocketmq.client.producer.DefaultMQProducer("quota-pg",
                            new org.apache.rocketmq.acl.common.AclClientRPCHook(
                                    new org.apache.rocketmq.acl.common.SessionCredentials("alice", "alice-secret")));
            remoting.setNamespace("acme");
            remoting.setNamesrvAddr("127.0.0.1:" + broker.port("remoting.port"));
            remoting.setInstanceName("quota-" + System.nanoTime());
            remoting.setRetryTimesWhenSendFailed(0);
            remoting.start();
            int remotingRefused = 0;
            try {
                for (int i = 0; i < 10; i++) {
                    try {
                        remoting.send(new org.apache.rocketmq.common.message.Message("metered",
                                ("r" + i).getBytes(StandardCharsets.UTF_8)));
                    } catch (final org.apache.rocketmq.client.exception.MQClientException e) {
                        // SYSTEM_BUSY (flow control) is one the producer would retry: it wraps the broker's answer
                        assertThat(e.getCause()).isInstanceOfSatisfying(
                                org.apache.rocketmq.client.exception.MQBrokerException.class, b -> {
                                    assertThat(b.getResponseCode()).isEqualTo(2);
                                    assertThat(b.getErrorMessage()).contains("[QUOTA]");
                                });
                        remotingRefused++;
                    }
                }
            } finally {
                remoting.shutdown();
            }
            assertThat(remotingRefused).as("10 Remoting sends at 5/s").isPositive();

            final org.apache.rocketmq.client.apis.ClientServiceProvider grpc =
                    org.apache.rocketmq.client.apis.ClientServiceProvider.loadService();
            int grpcRefused = 0;
            try (org.apache.rocketmq.client.apis.producer.Producer producer = grpc.newProducerBuilder()
                    .setClientConfiguration(org.apache.rocketmq.client.apis.ClientConfiguration.newBuilder()
                            .setEndpoints("127.0.0.1:" + broker.port("grpc.port")).enableSsl(false)
                            .setNamespace("acme").setCredentialProvider(
                                    new org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider("alice",
                                            "alice-secret")).build())
                    .setMaxAttempts(1).setTopics("metered").build()) {
                for (int i = 0; i < 10; i++) {
                    try {
                        producer.send(grpc.newMessageBuilder().setTopic("metered")
                                .setBody(("g" + i).getBytes(StandardCharsets.UTF_8)).build());
                    } catch (final org.apache.rocketmq.client.java.exception.TooManyRequestsException e) {
                        grpcRefused++;
                    }
                }
            }
            assertThat(grpcRefused).as("10 gRPC sends at 5/s").isPositive();

            // globex is not metered.
            final Mqtt5BlockingClient bob = client("rate-2", "bob");
            bob.connect();
            for (int i = 0; i < 20; i++) {
                bob.publishWith().topic("metered").qos(MqttQos.AT_LEAST_ONCE)
                        .payload("b".getBytes(StandardCharsets.UTF_8)).send();
            }
            bob.disconnect();
            final String metrics = http(broker, "GET", "/metrics", null, null, null, Map.of()).body();
            assertThat(metrics).contains("junction_quota_refusals_total{refused=\"publish\"}");
        } finally {
            quota("acme", "{}");
        }
    }
}
