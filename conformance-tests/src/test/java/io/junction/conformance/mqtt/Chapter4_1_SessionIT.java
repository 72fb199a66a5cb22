package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 section 4.1 (session state): persistent sessions keep subscriptions and queue messages while away. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter4_1_SessionIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldQueueMessagesForAnOfflinePersistentSession311() throws Exception {
        final Mqtt3BlockingClient sub = MqttClient.builder().useMqttVersion3().identifier("offline-311")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        sub.connectWith().cleanSession(false).send();
        sub.subscribeWith().topicFilter("queued/#").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();

        final Mqtt5BlockingClient pub = Clients.v5(broker, "offline-pub");
        for (int i = 0; i < 10; i++) {
            pub.publishWith().topic("queued/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("q" + i)).send();
        }
        pub.disconnect();

        try (Mqtt3BlockingClient.Mqtt3Publishes in = sub.publishes(MqttGlobalPublishFilter.ALL)) {
            assertThat(sub.connectWith().cleanSession(false).send().isSessionPresent()).isTrue();
            final List<String> got = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                final Optional<Mqtt3Publish> p = in.receive(10, TimeUnit.SECONDS);
                assertThat(p).as("message %d of 10, got %s", i, got).isPresent();
                got.add(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8));
            }
            for (int i = 0; i < 10; i++) {
                assertThat(got.get(i)).isEqualTo("q" + i);
            }
        }
        sub.disconnect();
    }

    @Test
    void shouldForgetACleanSessionOnDisconnect() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "forgetful");
        sub.subscribeWith().topicFilter("forgotten/#").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        final Mqtt5BlockingClient pub = Clients.v5(broker, "forgetful-pub");
        pub.publishWith().topic("forgotten/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("lost")).send();
        pub.disconnect();
        try (var in = Clients.publishes(sub)) {
            assertThat(sub.connect().isSessionPresent()).isFalse();
            Clients.assertNoMore(in, 700);
        }
        sub.disconnect();
    }

    @Test
    void shouldKeepAnMqtt5SessionWithExpiry() throws Exception {
        final Mqtt5BlockingClient sub = MqttClient.builder().useMqttVersion5().identifier("expiring")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        sub.connectWith().cleanStart(true).sessionExpiryInterval(60).send();
        sub.subscribeWith().topicFilter("expiring/#").qos(MqttQos.EXACTLY_ONCE).send();
        sub.disconnect();
        final Mqtt5BlockingClient pub = Clients.v5(broker, "expiring-pub");
        pub.publishWith().topic("expiring/x").qos(MqttQos.EXACTLY_ONCE).payload(bytes("kept")).send();
        pub.disconnect();
        try (var in = Clients.publishes(sub)) {
            assertThat(sub.connectWith().cleanStart(false).sessionExpiryInterval(60).send().isSessionPresent())
                    .isTrue();
            assertThat(Clients.texts(Clients.receive(in, 1))).containsExactly("kept");
        }
        sub.disconnect();
    }

    @Test
    void shouldKeepSubscriptionsAndQueuedMessagesAcrossABrokerRestart() throws Exception {
        final Mqtt5BlockingClient sub = MqttClient.builder().useMqttVersion5().identifier("survivor")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        sub.connectWith().cleanStart(true).sessionExpiryInterval(300).send();
        sub.subscribeWith().topicFilter("durable/+").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        final Mqtt5BlockingClient pub = Clients.v5(broker, "survivor-pub");
        for (int i = 0; i < 5; i++) {
            pub.publishWith().topic("durable/a").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("before" + i)).send();
        }
        pub.disconnect();

        broker.restart();

        final Mqtt5BlockingClient pub2 = Clients.v5(broker, "survivor-pub");
        pub2.publishWith().topic("durable/b").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("after")).send();
        pub2.disconnect();
        final Mqtt5BlockingClient again = MqttClient.builder().useMqttVersion5().identifier("survivor")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        try (var in = Clients.publishes(again)) {
            assertThat(again.connectWith().cleanStart(false).sessionExpiryInterval(300).send().isSessionPresent())
                    .isTrue();
            final List<String> got = Clients.texts(Clients.receive(in, 6));
            assertThat(got).containsExactlyInAnyOrder("before0", "before1", "before2", "before3", "before4",
                    "after");
            assertThat(got.stream().filter(s -> s.startsWith("before")).toList())
                    .containsExactly("before0", "before1", "before2", "before3", "before4");
            Clients.assertNoMore(in, 500);
        }
        again.disconnect();
    }

    @Test
    void shouldEndASessionOnceItsExpiryIntervalPasses() throws Exception {
        final Mqtt5BlockingClient sub = MqttClient.builder().useMqttVersion5().identifier("short-lived")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        sub.connectWith().cleanStart(true).sessionExpiryInterval(1).send();
        sub.subscribeWith().topicFilter("short/#").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        final Mqtt5BlockingClient pub = Clients.v5(broker, "short-lived-pub");
        pub.publishWith().topic("short/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("queued while it lived")).send();
        Thread.sleep(2_500); // past the 1 s expiry
        pub.publishWith().topic("short/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("after it ended")).send();
        pub.disconnect();
        // A new client object: the first one would (rightly) fail its streams when told its session is gone.
        final Mqtt5BlockingClient again = MqttClient.builder().useMqttVersion5().identifier("short-lived")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        try (var in = Clients.publishes(again)) {
            assertThat(again.connectWith().cleanStart(false).sessionExpiryInterval(1).send().isSessionPresent())
                    .as("session present after its expiry").isFalse();
            Clients.assertNoMore(in, 700); // neither its queued message nor its subscription survived
        }
        again.disconnect();
    }
}
