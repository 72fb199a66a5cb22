package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5Disconnect;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5 section 3.14 (DISCONNECT sent by the server): the reason code and reason string a client gets when its session
 * is taken over (0x8E), when it misses its keep alive (0x8D) and when the broker shuts down gracefully (0x8B).
 */
class Chapter3_14_DisconnectIT {
    private MqttTestBroker broker;

    @BeforeEach
    void start() {
        broker = MqttTestBroker.start();
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldTellTheOldConnectionItsSessionWasTakenOver() throws Exception {
        final CompletableFuture<Mqtt5Disconnect> told = new CompletableFuture<>();
        final Mqtt5BlockingClient first = client("twin", told);
        first.connect();
        final Mqtt5BlockingClient second = client("twin", new CompletableFuture<>());
        second.connect();
        final Mqtt5Disconnect d = told.get(10, TimeUnit.SECONDS);
        assertThat(d.getReasonCode()).isEqualTo(Mqtt5DisconnectReasonCode.SESSION_TAKEN_OVER);
        assertThat(d.getReasonString().map(Object::toString)).hasValue("session taken over");
        assertThat(second.getState().isConnected()).isTrue();
        second.disconnect();
    }

    @Test
    void shouldTellAClientThatMissedItsKeepAlive() {
        try (RawMqtt raw = new RawMqtt(broker.port())) {
            final byte[] connect = RawMqtt.connect5("drowsy", true, 0, 0);
            connect[11] = 1; // keep alive 1 s (the low byte after protocol name, level and flags)
            raw.send(connect);
            assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            final long start = System.nanoTime();
            final byte[] d = raw.readPacket(Duration.ofSeconds(5));
            final long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(d).isNotNull();
            assertThat(d[0]).isEqualTo((byte) 0xE0);
            assertThat(d[1] & 0xFF).isEqualTo(0x8D);
            assertThat(waitedMs).as("1.5 keep-alive intervals").isBetween(1_200L, 3_500L);
            assertThat(raw.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
    }

    @Test
    void shouldTellConnectedClientsWhenTheBrokerShutsDown() throws Exception {
        final CompletableFuture<Mqtt5Disconnect> a = new CompletableFuture<>();
        final CompletableFuture<Mqtt5Disconnect> b = new CompletableFuture<>();
        final Mqtt5BlockingClient first = client("leaving-a", a);
        first.connect();
        final Mqtt5BlockingClient second = client("leaving-b", b);
        second.connect();
        broker.restart(); // SIGTERM: a graceful stop
        for (CompletableFuture<Mqtt5Disconnect> told : java.util.List.of(a, b)) {
            final Mqtt5Disconnect d = told.get(10, TimeUnit.SECONDS);
            assertThat(d.getReasonCode()).isEqualTo(Mqtt5DisconnectReasonCode.SERVER_SHUTTING_DOWN);
            assertThat(d.getReasonString().map(Object::toString)).hasValue("server shutting down");
        }
    }

    /** A client without automatic reconnect whose first server DISCONNECT completes {@code told}. */
    private Mqtt5BlockingClient client(final String id, final CompletableFuture<Mqtt5Disconnect> told) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(broker.port())
                .addDisconnectedListener(ctx -> {
                    if (ctx.getCause() instanceof Mqtt5DisconnectException e) {
                        told.complete(e.getMqttMessage());
                    } else {
                        told.completeExceptionally(new AssertionError("no DISCONNECT from the server", ctx.getCause()));
                    }
                })
                .buildBlocking();
    }
}
