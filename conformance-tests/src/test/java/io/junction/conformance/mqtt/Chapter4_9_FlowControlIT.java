package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5 section 4.9 (flow control: Receive Maximum) and 4.4 (message delivery retry: DUP after reconnect), seen
 * from a raw socket so every packet is visible.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter4_9_FlowControlIT {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldNotExceedTheClientsReceiveMaximum() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5("window", true, 0, 2));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x20);
            raw.send(RawMqtt.subscribe(1, "flow/#", 1, true));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x90);
            final Mqtt5BlockingClient pub = Clients.v5(broker, "window-pub");
            for (int i = 0; i < 5; i++) {
                try {
                    pub.publishWith().topic("flow/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("f" + i)).send();
                } catch (com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException e) {
                    throw new AssertionError("publish " + i + " refused: " + e.getMqttMessage().getReasonCode() + " "
                            + e.getMqttMessage().getReasonString().map(Object::toString).orElse(""), e);
                }
            }
            pub.disconnect();
            final List<Integer> ids = new ArrayList<>();
            ids.add(RawMqtt.publishPacketId(raw.readPacket(WAIT)));
            ids.add(RawMqtt.publishPacketId(raw.readPacket(WAIT)));
            assertThat(raw.readPacket(Duration.ofMillis(700))).as("a third PUBLISH beyond the window").isNull();
            int received = 2;
            while (received < 5) {
                raw.send(RawMqtt.pubAck(ids.remove(0)));
                final byte[] next = raw.readPacket(WAIT);
                assertThat(next).isNotNull();
                assertThat(next[0] & 0xF0).isEqualTo(0x30);
                ids.add(RawMqtt.publishPacketId(next));
                received++;
            }
        }
    }

    @Test
    void shouldRedeliverUnacknowledgedMessagesWithDupAfterReconnect() {
        final int packetId;
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("redeliver", false));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x20);
            raw.send(RawMqtt.subscribe(1, "redo/#", 1, false));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x90);
            final Mqtt5BlockingClient pub = Clients.v5(broker, "redeliver-pub");
            pub.publishWith().topic("redo/x").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("again")).send();
            pub.disconnect();
            final byte[] first = raw.readPacket(WAIT);
            assertThat(first[0]).isEqualTo((byte) 0x32); // PUBLISH, QoS 1, no DUP
            packetId = RawMqtt.publishPacketId(first);
        } // gone without PUBACK
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("redeliver", false));
            final byte[] ack = raw.readPacket(WAIT);
            assertThat(ack[0]).isEqualTo((byte) 0x20);
            assertThat(ack[1]).as("session present in %s", java.util.Arrays.toString(ack)).isEqualTo((byte) 1);
            final byte[] again = raw.readPacket(WAIT);
            assertThat(again[0]).isEqualTo((byte) 0x3A); // PUBLISH, QoS 1, DUP
            assertThat(RawMqtt.publishPacketId(again)).isEqualTo(packetId);
            assertThat(new String(again, again.length - 5, 5)).isEqualTo("again");
            raw.send(RawMqtt.pubAck(packetId));
            assertThat(raw.readPacket(Duration.ofMillis(500))).isNull();
        }
    }

    @Test
    void shouldDropMessagesLargerThanTheClientsMaximumPacketSize() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5("small-packets", true, 0, 0, 100));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x20);
            raw.send(RawMqtt.subscribe(1, "sizes/#", 0, true));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x90);
            final Mqtt5BlockingClient pub = Clients.v5(broker, "sizes-pub");
            pub.publishWith().topic("sizes/a").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("x".repeat(500))).send();
            pub.publishWith().topic("sizes/a").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("small")).send();
            pub.disconnect();
            final byte[] only = raw.readPacket(WAIT);
            assertThat(only).isNotNull();
            assertThat(only.length).isLessThan(100);
            assertThat(new String(only, only.length - 5, 5, java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("small");
            assertThat(raw.readPacket(Duration.ofMillis(500))).isNull();
        }
    }

    /** 3.3.4-9: a client with more unacknowledged QoS 2 publishes than the broker's Receive Maximum (1024). */
    @Test
    void shouldDisconnectAClientThatExceedsTheBrokersReceiveMaximum() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5("greedy", true, 0, 0));
            final byte[] connAck = raw.readPacket(WAIT);
            assertThat(connAck[0]).isEqualTo((byte) 0x20);
            final java.io.ByteArrayOutputStream burst = new java.io.ByteArrayOutputStream();
            for (int id = 1; id <= 1025; id++) {
                burst.writeBytes(RawMqtt.publish5Qos2("greedy/x", "g" + id, id)); // never released with PUBREL
            }
            raw.send(burst.toByteArray());
            int pubRecs = 0;
            byte[] p;
            while ((p = raw.readPacket(WAIT)) != null && (p[0] & 0xF0) == 0x50) {
                pubRecs++;
            }
            assertThat(p).as("a DISCONNECT after %d PUBRECs", pubRecs).isNotNull();
            assertThat(p[0]).isEqualTo((byte) 0xE0);
            assertThat(p[1] & 0xFF).isEqualTo(0x93); // receive maximum exceeded
            assertThat(pubRecs).isLessThanOrEqualTo(1024);
            assertThat(raw.closedWithin(WAIT)).isTrue();
        }
    }
}
