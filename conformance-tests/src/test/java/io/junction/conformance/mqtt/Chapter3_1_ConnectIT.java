package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 chapter 3.1 (CONNECT) and 3.2 (CONNACK), with 3.1.1 and 5.0 clients and raw sockets. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter3_1_ConnectIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldAssignAClientIdentifierInMqtt5() {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        final Mqtt5ConnAck ack = client.connect();
        assertThat(ack.getReasonCode()).isEqualTo(Mqtt5ConnAckReasonCode.SUCCESS);
        assertThat(ack.getAssignedClientIdentifier()).isPresent();
        assertThat(ack.getAssignedClientIdentifier().get().toString()).startsWith("junction-");
        assertThat(ack.isSessionPresent()).isFalse();
        assertThat(ack.getRestrictions().getReceiveMaximum()).isPositive();
        client.disconnect();
    }

    @Test
    void shouldReportSessionPresentOnlyForAPersistentSession() {
        final Mqtt3BlockingClient client = MqttClient.builder().useMqttVersion3().identifier("c3-persistent")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        final Mqtt3ConnAck first = client.connectWith().cleanSession(false).send();
        assertThat(first.isSessionPresent()).isFalse();
        client.disconnect();
        final Mqtt3ConnAck second = client.connectWith().cleanSession(false).send();
        assertThat(second.isSessionPresent()).isTrue();
        client.disconnect();
        final Mqtt3ConnAck clean = client.connectWith().cleanSession(true).send();
        assertThat(clean.isSessionPresent()).isFalse();
        client.disconnect();
    }

    @Test
    void shouldTakeOverASessionAndCloseTheOldConnection() throws Exception {
        final AtomicReference<Throwable> lost = new AtomicReference<>();
        final org.eclipse.paho.client.mqttv3.MqttClient first =
                new org.eclipse.paho.client.mqttv3.MqttClient(broker.mqttUri(), "taken", new MemoryPersistence());
        first.setCallback(new MqttCallback() {
            @Override
            public void connectionLost(final Throwable cause) {
                lost.set(cause);
            }

            @Override
            public void messageArrived(final String topic, final MqttMessage message) {
            }

            @Override
            public void deliveryComplete(final IMqttDeliveryToken token) {
            }
        });
        final MqttConnectOptions options = new MqttConnectOptions();
        options.setAutomaticReconnect(false);
        first.connect(options);
        final org.eclipse.paho.client.mqttv3.MqttClient second =
                new org.eclipse.paho.client.mqttv3.MqttClient(broker.mqttUri(), "taken", new MemoryPersistence());
        second.connect(options);
        await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() != null);
        assertThat(second.isConnected()).isTrue();
        second.publish("takeover/check", new MqttMessage("x".getBytes()));
        try {
            second.disconnect();
        } catch (final MqttException e) {
            // Paho may see the broker close the socket (as it must after DISCONNECT) before it marks the
            // disconnect done and report "connection lost": the outcome is the same, a closed connection.
            assertThat(e.getReasonCode()).isEqualTo(MqttException.REASON_CODE_CONNECTION_LOST);
        }
        second.close();
        first.close();
    }

    @Test
    void shouldCloseAConnectionThatNeverSendsConnect() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            // mqtt.connect-timeout-ms=1000 in these tests
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertOtherClientsStillWork();
    }

    @Test
    void shouldCloseOnASecondConnect() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("twice", 60));
            assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20); // CONNACK
            raw.send(RawMqtt.connect311("twice", 60));
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertOtherClientsStillWork();
    }

    @Test
    void shouldCloseAfterOneAndAHalfKeepAliveIntervals() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("sleepy", 1));
            assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20);
            final long start = System.nanoTime();
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
            final long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).isBetween(1000L, 4000L);
        }
    }

    @Test
    void shouldKeepAConnectionThatPingsAlive() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("pinger", 1));
            assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20);
            for (int i = 0; i < 4; i++) {
                raw.send(new byte[] {(byte) 0xC0, 0}); // PINGREQ
                assertThat(raw.readPacketType(Duration.ofSeconds(2))).isEqualTo(0xD0); // PINGRESP
            }
        }
    }

    @Test
    void shouldCloseOnMalformedBytes() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(new byte[] {0x10, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3});
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(new byte[] {0x10, 4, 0, 2, 'X', 'Y'}); // CONNECT with a bogus protocol name
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(new byte[] {0x30, 2, 0, 1}); // PUBLISH before CONNECT
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertOtherClientsStillWork();
    }

    @Test
    void shouldRejectAnEmptyClientIdWithoutCleanSessionIn311() {
        final Mqtt3BlockingClient client = MqttClient.builder().useMqttVersion3().serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        try {
            client.connectWith().cleanSession(false).send();
            org.junit.jupiter.api.Assertions.fail("connected");
        } catch (final com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException e) {
            assertThat(e.getMqttMessage().getReturnCode().getCode()).isEqualTo(2); // identifier rejected
        }
    }

    @Test
    void shouldRefuseAnUnknownProtocolLevelWithCodeOneAndClose() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            final byte[] connect = RawMqtt.connect311("from-the-future", 60);
            connect[8] = 6; // protocol level 6: neither 3.1.1 (4) nor 5
            raw.send(connect);
            final byte[] connAck = raw.readPacket(Duration.ofSeconds(5));
            assertThat(connAck).isNotNull();
            assertThat(connAck[0]).isEqualTo((byte) 0x20);
            assertThat(connAck[connAck.length - 1]).isEqualTo((byte) 0x01); // 3.1.2-2: unacceptable protocol level
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertOtherClientsStillWork();
    }

    @Test
    void shouldRefuseEnhancedAuthenticationWithBadAuthenticationMethod() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            final byte[] method = "SCRAM-SHA-1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            final java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
            body.writeBytes(new byte[] {0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60});
            body.write(3 + method.length); // properties: Authentication Method (0x15)
            body.write(0x15);
            body.write(0);
            body.write(method.length);
            body.writeBytes(method);
            body.writeBytes(new byte[] {0, 4, 'a', 'u', 't', 'h'});
            raw.send(RawMqtt.packet(0x10, body.toByteArray()));
            final byte[] connAck = raw.readPacket(Duration.ofSeconds(5));
            assertThat(connAck).isNotNull();
            assertThat(connAck[0]).isEqualTo((byte) 0x20);
            assertThat(connAck[2] & 0xFF).isEqualTo(0x8C); // after the acknowledge flags
            assertThat(new String(connAck, java.nio.charset.StandardCharsets.UTF_8))
                    .as("reason string").contains("enhanced authentication is not supported");
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
    }

    private static void assertOtherClientsStillWork() {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier("bystander")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        assertThat(client.connect().getReasonCode()).isEqualTo(Mqtt5ConnAckReasonCode.SUCCESS);
        client.disconnect();
    }
}
