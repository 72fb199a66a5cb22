package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 section 4.13 (handling errors): a server DISCONNECT with the reason code, then the connection closes. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter4_13_ErrorHandlingIT {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldDisconnectWithTopicNameInvalidForAWildcardPublish() {
        assertDisconnectReason("wild5", RawMqtt.publish5("a/+", "x"), 0x90);
    }

    @Test
    void shouldDisconnectWithMalformedPacketForAReservedPacketType() {
        assertDisconnectReason("reserved5", new byte[] {0x00, 0}, 0x81);
    }

    @Test
    void shouldDisconnectWithProtocolErrorForASecondConnect() {
        assertDisconnectReason("twice5", RawMqtt.connect5("twice5", true, 0, 0), 0x82);
    }

    @Test
    void shouldDisconnectWithPacketTooLarge() {
        assertDisconnectReason("big5", RawMqtt.publish5("big", "x".repeat(70 * 1024)), 0x95);
    }

    private static void assertDisconnectReason(final String clientId, final byte[] bad, final int reason) {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5(clientId, true, 0, 0));
            assertThat(raw.readPacket(WAIT)[0]).isEqualTo((byte) 0x20);
            raw.send(bad);
            final byte[] disconnect = raw.readPacket(WAIT);
            assertThat(disconnect).isNotNull();
            assertThat(disconnect[0]).isEqualTo((byte) 0xE0);
            assertThat(disconnect[1] & 0xFF).isEqualTo(reason);
            assertThat(raw.closedWithin(WAIT)).isTrue();
        }
    }
}
