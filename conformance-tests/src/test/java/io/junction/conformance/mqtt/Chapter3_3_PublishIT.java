package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static io.junction.conformance.mqtt.Clients.publishes;
import static io.junction.conformance.mqtt.Clients.receive;
import static io.junction.conformance.mqtt.Clients.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PayloadFormatIndicator;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5 chapter 3.3 (PUBLISH): properties through the core, wildcard subscribers on the same core topic, topic
 * aliases, invalid topic names.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter3_3_PublishIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    /** The cross-check through the core: one publish to sensors/room1 reaches sensors/# and sensors/+ intact. */
    @Test
    void shouldDeliverPayloadAndPropertiesToWildcardSubscribers() throws Exception {
        final Mqtt5BlockingClient hash = Clients.v5(broker, "sub-hash");
        final Mqtt5BlockingClient plus = Clients.v5(broker, "sub-plus");
        final Mqtt5BlockingClient pub = Clients.v5(broker, "pub-sensors");
        try (var hashIn = publishes(hash); var plusIn = publishes(plus)) {
            hash.subscribeWith().topicFilter("sensors/#").qos(MqttQos.AT_LEAST_ONCE).send();
            plus.subscribeWith().topicFilter("sensors/+").qos(MqttQos.AT_LEAST_ONCE).send();
            pub.publishWith().topic("sensors/room1").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("21.5"))
                    .userProperties().add("unit", "celsius").add("floor", "2").applyUserProperties()
                    .contentType("text/plain").payloadFormatIndicator(Mqtt5PayloadFormatIndicator.UTF_8)
                    .responseTopic("replies/room1").correlationData(bytes("corr-1")).messageExpiryInterval(120)
                    .send();
            pub.publishWith().topic("sensors/room1/deep").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("deep")).send();
            final List<Mqtt5Publish> viaHash = receive(hashIn, 2);
            final List<Mqtt5Publish> viaPlus = receive(plusIn, 1);
            assertThat(texts(viaHash)).containsExactlyInAnyOrder("21.5", "deep"); // two topics: no order between
            viaHash.sort(java.util.Comparator.comparing(p -> p.getTopic().toString()));
            assertThat(texts(viaPlus)).containsExactly("21.5");
            for (Mqtt5Publish p : List.of(viaHash.get(0), viaPlus.get(0))) {
                assertThat(p.getTopic().toString()).isEqualTo("sensors/room1");
                assertThat(p.getQos()).isEqualTo(MqttQos.AT_LEAST_ONCE);
                assertThat(p.getUserProperties().asList().stream()
                        .map(u -> u.getName() + "=" + u.getValue()).toList()).containsExactly("unit=celsius", "floor=2");
                assertThat(p.getContentType().map(Object::toString)).hasValue("text/plain");
                assertThat(p.getPayloadFormatIndicator()).hasValue(Mqtt5PayloadFormatIndicator.UTF_8);
                assertThat(p.getResponseTopic().map(Object::toString)).hasValue("replies/room1");
                assertThat(p.getCorrelationData().map(Chapter3_3_PublishIT::string)).hasValue("corr-1");
                assertThat(p.getMessageExpiryInterval().getAsLong()).isBetween(100L, 120L);
            }
            Clients.assertNoMore(plusIn, 300);
        } finally {
            hash.disconnect();
            plus.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldKeepOrderPerTopicAtEveryQos() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "order-sub");
        final Mqtt5BlockingClient pub = Clients.v5(broker, "order-pub");
        try (var in = publishes(sub)) {
            sub.subscribeWith().topicFilter("order/#").qos(MqttQos.EXACTLY_ONCE).send();
            for (MqttQos qos : MqttQos.values()) {
                for (int i = 0; i < 20; i++) {
                    pub.publishWith().topic("order/" + qos).qos(qos).payload(bytes(qos + "-" + i)).send();
                }
            }
            final List<Mqtt5Publish> got = receive(in, 60);
            for (MqttQos qos : MqttQos.values()) {
                final List<String> ofQos = got.stream().filter(p -> p.getTopic().toString().equals("order/" + qos))
                        .map(Clients::text).toList();
                assertThat(ofQos).hasSize(20);
                for (int i = 0; i < 20; i++) {
                    assertThat(ofQos.get(i)).isEqualTo(qos + "-" + i);
                }
                got.stream().filter(p -> p.getTopic().toString().equals("order/" + qos))
                        .forEach(p -> assertThat(p.getQos()).isEqualTo(qos));
            }
            Clients.assertNoMore(in, 300);
        } finally {
            sub.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldResolveInboundTopicAliases() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "alias-sub");
        final Mqtt5BlockingClient pub = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5()
                .identifier("alias-pub").serverHost("127.0.0.1").serverPort(broker.mqttPort())
                .advancedConfig().interceptors().applyInterceptors().applyAdvancedConfig().buildBlocking();
        pub.connectWith().restrictions().topicAliasMaximum(0).applyRestrictions().send();
        try (var in = publishes(sub)) {
            sub.subscribeWith().topicFilter("alias/#").qos(MqttQos.AT_LEAST_ONCE).send();
            for (int i = 0; i < 5; i++) {
                pub.publishWith().topic("alias/long/topic/name").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("a" + i))
                        .send();
            }
            assertThat(texts(receive(in, 5))).containsExactly("a0", "a1", "a2", "a3", "a4");
        } finally {
            sub.disconnect();
            pub.disconnect();
        }
    }

    @Test
    void shouldUseTopicAliasesTowardsClientsThatAllowThem() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5("alias-raw", true, 0, 0, 0, 1));
            assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            raw.send(RawMqtt.subscribe(1, "aliased/#", 0, true));
            assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x90);
            final Mqtt5BlockingClient pub = Clients.v5(broker, "alias-raw-pub");
            for (int i = 0; i < 3; i++) {
                pub.publishWith().topic("aliased/one").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("p" + i)).send();
            }
            pub.disconnect();
            final byte[] first = raw.readPacket(Duration.ofSeconds(5));
            final byte[] second = raw.readPacket(Duration.ofSeconds(5));
            final byte[] third = raw.readPacket(Duration.ofSeconds(5));
            assertThat(topicLength(first)).isEqualTo("aliased/one".length()); // name + alias 1
            assertThat(topicLength(second)).isZero(); // alias only
            assertThat(topicLength(third)).isZero();
            assertThat(new String(third, third.length - 2, 2, java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("p2");
        }
    }

    private static int topicLength(final byte[] publish) {
        return (publish[1] & 0xFF) << 8 | publish[2] & 0xFF;
    }

    @Test
    void shouldNotDeliverExpiredMessages() throws Exception {
        final Mqtt5BlockingClient sub = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5()
                .identifier("expiry-sub").serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        sub.connectWith().sessionExpiryInterval(60).send();
        sub.subscribeWith().topicFilter("expiry/#").qos(MqttQos.AT_LEAST_ONCE).send();
        sub.disconnect();
        final Mqtt5BlockingClient pub = Clients.v5(broker, "expiry-pub");
        pub.publishWith().topic("expiry/short").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("short"))
                .messageExpiryInterval(1).send();
        pub.publishWith().topic("expiry/long").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("long"))
                .messageExpiryInterval(600).send();
        pub.disconnect();
        org.awaitility.Awaitility.await().pollDelay(Duration.ofMillis(2200)).until(() -> true);
        try (var in = publishes(sub)) {
            sub.connectWith().cleanStart(false).sessionExpiryInterval(0).send();
            final List<Mqtt5Publish> got = receive(in, 1);
            assertThat(texts(got)).containsExactly("long");
            assertThat(got.get(0).getMessageExpiryInterval().getAsLong()).isBetween(590L, 600L);
            Clients.assertNoMore(in, 500);
        } finally {
            sub.disconnect();
        }
    }

    @Test
    void shouldCloseOnAWildcardInAPublishTopic() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("wild-pub", 60));
            assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20);
            raw.send(RawMqtt.publish("a/+/b", "x"));
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("wild-pub2", 60));
            assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20);
            raw.send(RawMqtt.publish("a/#", "x"));
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
    }

    @Test
    void shouldCloseOnAPacketOverTheMaximumSize() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("big-pub", 60));
            assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20);
            raw.send(RawMqtt.publish("big", "x".repeat(70 * 1024))); // mqtt.max-packet-size=64k in these tests
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
    }

    private static String string(final ByteBuffer b) {
        final byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
}
