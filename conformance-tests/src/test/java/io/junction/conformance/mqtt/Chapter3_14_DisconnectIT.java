package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5Disconnect;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5 section 3.14 (DISCONNECT sent by the server): the reason code and reason string a client gets when its session
 * is taken over (0x8E), when it misses its keep alive (0x8D) and when the broker shuts down gracefully (0x8B).
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"}, perTest = true)
class Chapter3_14_DisconnectIT {
    private RunningBroker broker;

    @BeforeEach
    void broker(final RunningBroker running) {
        broker = running;
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
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
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

    /**
     * A client still writing when it is disconnected must get to read why: the broker stops reading, flushes the
     * DISCONNECT and half-closes instead of closing on unread bytes (which resets the connection and throws away what
     * the client had not read yet).
     */
    @Test
    void shouldLetAClientThatKeepsWritingReadWhyItIsDisconnected() throws Exception {
        final java.io.ByteArrayOutputStream tooMany = new java.io.ByteArrayOutputStream();
        for (int id = 1; id <= 1025; id++) { // one over the broker's Receive Maximum, never released
            tooMany.writeBytes(RawMqtt.publish5Qos2("eager/x", "e" + id, id));
        }
        assertThat(reasonWhileWriting("eager", tooMany.toByteArray(), RawMqtt.publish5("eager/y", "more")))
                .isEqualTo(0x93); // receive maximum exceeded
        // A packet over mqtt.max-packet-size (64k in these tests): its header is enough to refuse it; the rest follows.
        final byte[] head = {0x30, (byte) 0x80, (byte) 0x80, 0x40}; // PUBLISH QoS 0, remaining length 1 MiB
        assertThat(reasonWhileWriting("bulky", head, new byte[8192])).isEqualTo(0x95); // packet too large
    }

    /** The same with a real client: HiveMQ's, publishing as fast as it can when its session is taken over. */
    @Test
    void shouldLetAPublishingClientReadThatItsSessionWasTakenOver() throws Exception {
        for (int round = 0; round < 3; round++) {
            final CompletableFuture<Mqtt5Disconnect> told = new CompletableFuture<>();
            final com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient busy = client("busy-" + round, told).toAsync();
            busy.connect().get(10, TimeUnit.SECONDS);
            final java.util.concurrent.atomic.AtomicBoolean publishing =
                    new java.util.concurrent.atomic.AtomicBoolean(true);
            final byte[] payload = new byte[4096];
            final Thread flood = new Thread(() -> {
                while (publishing.get() && !told.isDone()) {
                    busy.publishWith().topic("busy/x").payload(payload).send();
                }
            }, "mqtt-flood");
            flood.start();
            TimeUnit.MILLISECONDS.sleep(300); // let the flood build up before the take-over (not a wait for an outcome)
            final Mqtt5BlockingClient twin = client("busy-" + round, new CompletableFuture<>());
            twin.connect();
            try {
                final Mqtt5Disconnect d = told.get(10, TimeUnit.SECONDS);
                assertThat(d.getReasonCode()).as("round %d", round)
                        .isEqualTo(Mqtt5DisconnectReasonCode.SESSION_TAKEN_OVER);
            } finally {
                publishing.set(false);
                flood.join(10_000);
                twin.disconnect();
            }
        }
    }

    /**
     * Connects over MQTT 5, writes {@code first}, then keeps writing {@code more} from another thread until the
     * broker stops taking it; returns the reason code of the DISCONNECT read meanwhile (-1 when none came).
     */
    private int reasonWhileWriting(final String clientId, final byte[] first, final byte[] more) throws Exception {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect5(clientId, true, 0, 0));
            assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            final java.util.concurrent.atomic.AtomicBoolean reading = new java.util.concurrent.atomic.AtomicBoolean(true);
            final Thread writer = new Thread(() -> {
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                try {
                    raw.send(first);
                    while (reading.get() && System.nanoTime() < end) {
                        raw.send(more);
                    }
                } catch (final java.io.UncheckedIOException e) {
                    // the broker closed: expected
                }
            }, "mqtt-writer-" + clientId);
            writer.start();
            try {
                byte[] p;
                while ((p = raw.readPacket(Duration.ofSeconds(10))) != null) {
                    if ((p[0] & 0xF0) == 0xE0) {
                        return p[1] & 0xFF;
                    }
                }
                return -1;
            } finally {
                reading.set(false);
                writer.join(15_000);
            }
        }
    }

    /** A client without automatic reconnect whose first server DISCONNECT completes {@code told}. */
    private Mqtt5BlockingClient client(final String id, final CompletableFuture<Mqtt5Disconnect> told) {
        return MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(broker.mqttPort())
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
