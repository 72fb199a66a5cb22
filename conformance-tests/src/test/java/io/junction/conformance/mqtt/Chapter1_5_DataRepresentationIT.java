package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5 section 1.5.4 (UTF-8 Encoded String): ill-formed UTF-8, encoded surrogates and U+0000 make a packet
 * malformed (1.5.4-1, 1.5.4-2); the broker answers an MQTT 5 client with DISCONNECT 0x81 and closes, closes a 3.1.1
 * connection, and a subscriber on another connection goes on receiving.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter1_5_DataRepresentationIT {
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** "bad/" then a lone continuation byte. */
    private static final byte[] ILL_FORMED = {'b', 'a', 'd', '/', (byte) 0x80};
    /** "bad/" then U+D800 encoded as three bytes, which UTF-8 forbids. */
    private static final byte[] SURROGATE = {'b', 'a', 'd', '/', (byte) 0xED, (byte) 0xA0, (byte) 0x80};
    /** "bad/" then U+0000. */
    private static final byte[] NUL = {'b', 'a', 'd', '/', 0};
    /** "bad/" then '/' in an overlong two-byte form. */
    private static final byte[] OVERLONG = {'b', 'a', 'd', '/', (byte) 0xC0, (byte) 0xAF};

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldDisconnectAnMqtt5ClientWithMalformedPacketForEachKindOfBadString() throws Exception {
        final Mqtt5BlockingClient bystander = Clients.v5(broker, "utf8-bystander");
        try (var in = Clients.publishes(bystander)) {
            bystander.subscribeWith().topicFilter("good/#").qos(MqttQos.AT_LEAST_ONCE).send();
            int n = 0;
            for (byte[] topic : new byte[][] {ILL_FORMED, SURROGATE, NUL, OVERLONG}) {
                try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
                    raw.send(RawMqtt.connect5("utf8-bad-" + n, true, 0, 0));
                    assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x20);
                    raw.send(RawMqtt.publish5RawTopic(topic, "never stored"));
                    final byte[] disconnect = raw.readPacket(WAIT);
                    assertThat(disconnect).as("DISCONNECT for topic %d", n).isNotNull();
                    assertThat(disconnect[0]).isEqualTo((byte) 0xE0);
                    assertThat(disconnect[1] & 0xFF).as("reason code").isEqualTo(0x81);
                    assertThat(raw.closedWithin(WAIT)).isTrue();
                }
                final Mqtt5BlockingClient pub = Clients.v5(broker, "utf8-good-" + n);
                pub.publishWith().topic("good/" + n).qos(MqttQos.AT_LEAST_ONCE).payload(bytes("ok" + n)).send();
                pub.disconnect();
                assertThat(Clients.texts(Clients.receive(in, 1))).containsExactly("ok" + n);
                n++;
            }
            Clients.assertNoMore(in, 300);
        }
        bystander.disconnect();
    }

    @Test
    void shouldCloseAnMqtt311ConnectionOnABadTopicAndStoreNothing() throws Exception {
        final Mqtt5BlockingClient watcher = Clients.v5(broker, "utf8-watcher");
        try (var in = Clients.publishes(watcher)) {
            watcher.subscribeWith().topicFilter("bad/#").qos(MqttQos.AT_LEAST_ONCE).send();
            for (byte[] topic : new byte[][] {ILL_FORMED, SURROGATE, NUL}) {
                try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
                    raw.send(RawMqtt.connect311("utf8-311", 60));
                    assertThat(raw.readPacketType(WAIT)).isEqualTo(0x20);
                    raw.send(RawMqtt.publishRawTopic(topic, "never stored"));
                    assertThat(raw.closedWithin(WAIT)).isTrue();
                }
            }
            Clients.assertNoMore(in, 500); // nothing reached bad/#, not even with a replaced character
        }
        watcher.disconnect();
    }

    @Test
    void shouldCloseAConnectionWhoseClientIdIsNotUtf8WithoutAccepting() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311RawClientId(new byte[] {'d', 'e', 'v', (byte) 0xFF}));
            final byte[] reply = raw.readPacket(WAIT);
            if (reply != null) {
                assertThat(reply[0]).as("anything but a CONNACK accepting it").isEqualTo((byte) 0x20);
                assertThat(reply[reply.length - 1]).as("CONNACK return code").isNotEqualTo((byte) 0);
            }
            assertThat(raw.closedWithin(WAIT)).isTrue();
        }
    }
}
