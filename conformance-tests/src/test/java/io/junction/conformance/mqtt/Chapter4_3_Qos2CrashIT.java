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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5 section 4.3.3 (QoS 2: exactly once delivery) for a persistent session across a broker crash (SIGKILL, SYNC
 * flush). The subscriber is a bare connection so that packet ids, DUP flags and each acknowledgement are in the
 * test's hands: a receiver deduplicates by packet id only until it gets the PUBREL, so after the restart the broker
 * must send PUBREL (never PUBLISH) for what was released, PUBLISH with DUP and the same packet id for what was in
 * flight without a PUBREC, and nothing for what was completed, though the session's read offsets are saved only
 * every few seconds and the broker reads those messages again.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k", "store.flush-mode=SYNC"})
class Chapter4_3_Qos2CrashIT {
    private static final String CLIENT = "qos2-crash-sub";
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldDeliverQos2ExactlyOnceAcrossACrash() throws Exception {
        final Map<String, Integer> ids = new HashMap<>();
        try (RawMqtt sub = new RawMqtt(broker.mqttPort())) {
            sub.send(RawMqtt.connect311(CLIENT, false));
            assertThat(sub.readPacket(WAIT)).as("CONNACK").isNotNull();
            sub.send(RawMqtt.subscribe(1, "x2/#", 2, false));
            final byte[] subAck = sub.readPacket(WAIT);
            assertThat(subAck).as("SUBACK").isNotNull();
            assertThat(subAck[subAck.length - 1]).as("granted QoS").isEqualTo((byte) 2);

            publish("m1", "m2", "m3", "m4");
            for (int i = 0; i < 4; i++) {
                final byte[] p = sub.readPacket(WAIT);
                assertThat(p).as("PUBLISH %d of 4", i + 1).isNotNull();
                assertThat(p[0] & 0xF0).isEqualTo(0x30);
                assertThat(p[0] & 0x06).as("QoS 2").isEqualTo(0x04);
                assertThat(p[0] & 0x08).as("DUP on a first delivery").isZero();
                ids.put(RawMqtt.publishPayload311(p), RawMqtt.publishPacketId(p));
            }
            assertThat(ids.keySet()).containsExactlyInAnyOrder("m1", "m2", "m3", "m4");

            // m1 completed; m2 released (PUBREL came, no PUBCOMP yet); m3 and m4 not acknowledged at all.
            sub.send(RawMqtt.pubRec(ids.get("m1")));
            assertThat(sub.readPacket(WAIT)).as("PUBREL m1").containsExactly(0x62,
                    ids.get("m1") >> 8, ids.get("m1") & 0xFF);
            sub.send(RawMqtt.pubComp(ids.get("m1")));
            sub.send(RawMqtt.pubRec(ids.get("m2")));
            assertThat(sub.readPacket(WAIT)).as("PUBREL m2").containsExactly(0x62,
                    ids.get("m2") >> 8, ids.get("m2") & 0xFF);
            Thread.sleep(300); // the PUBCOMP reaches the broker (its record is not waited for: see below)
        }

        broker.crash();

        try (RawMqtt sub = new RawMqtt(broker.mqttPort())) {
            sub.send(RawMqtt.connect311(CLIENT, false));
            final byte[] connAck = sub.readPacket(WAIT);
            assertThat(connAck).as("CONNACK").isNotNull();
            assertThat(connAck[1] & 0x01).as("session present").isEqualTo(1);

            final List<String> publishes = new ArrayList<>();
            final Map<Integer, Integer> pubRels = new HashMap<>();
            final Map<String, Integer> resentIds = new HashMap<>();
            for (byte[] p = sub.readPacket(Duration.ofSeconds(5)); p != null; p = sub.readPacket(Duration.ofSeconds(2))) {
                if ((p[0] & 0xF0) == 0x30) {
                    final String payload = RawMqtt.publishPayload311(p);
                    publishes.add(payload);
                    assertThat(p[0] & 0x08).as("DUP on the resent %s", payload).isEqualTo(0x08);
                    resentIds.put(payload, RawMqtt.publishPacketId(p));
                } else if ((p[0] & 0xF0) == 0x60) {
                    pubRels.merge(RawMqtt.ackPacketId(p), 1, Integer::sum);
                }
            }
            assertThat(publishes).as("PUBLISHes after the restart: only those never released")
                    .containsExactlyInAnyOrder("m3", "m4");
            assertThat(resentIds).as("the same packet ids").containsEntry("m3", ids.get("m3"))
                    .containsEntry("m4", ids.get("m4"));
            // m2's PUBREL again; m1's too only if the crash came before its PUBCOMP was recorded (harmless).
            assertThat(pubRels).containsKey(ids.get("m2"));
            assertThat(pubRels.keySet()).isSubsetOf(Set.of(ids.get("m1"), ids.get("m2")));

            // Finish everything; then a new message gets a packet id that is free, and nothing comes twice.
            for (int id : pubRels.keySet()) {
                sub.send(RawMqtt.pubComp(id));
            }
            for (String m : List.of("m3", "m4")) {
                sub.send(RawMqtt.pubRec(ids.get(m)));
                assertThat(sub.readPacket(WAIT)).as("PUBREL " + m).containsExactly(0x62,
                        ids.get(m) >> 8, ids.get(m) & 0xFF);
                sub.send(RawMqtt.pubComp(ids.get(m)));
            }
            publish("m5");
            final byte[] p5 = sub.readPacket(WAIT);
            assertThat(p5).as("PUBLISH m5").isNotNull();
            assertThat(RawMqtt.publishPayload311(p5)).isEqualTo("m5");
            assertThat(p5[0] & 0x08).as("DUP on m5").isZero();
            sub.send(RawMqtt.pubRec(RawMqtt.publishPacketId(p5)));
            assertThat(sub.readPacket(WAIT)[0] & 0xF0).as("PUBREL m5").isEqualTo(0x60);
            sub.send(RawMqtt.pubComp(RawMqtt.publishPacketId(p5)));
            assertThat(sub.readPacket(Duration.ofSeconds(1))).as("nothing more").isNull();
        }

        // A clean restart after a completed exchange: nothing comes back at all.
        broker.restart();
        try (RawMqtt sub = new RawMqtt(broker.mqttPort())) {
            sub.send(RawMqtt.connect311(CLIENT, false));
            assertThat(sub.readPacket(WAIT)).as("CONNACK").isNotNull();
            assertThat(sub.readPacket(Duration.ofSeconds(2))).as("nothing after a clean restart").isNull();
        }
    }

    /**
     * 4.6: after a crash the broker sends again what was unacknowledged in the order it first sent it. A QoS 2
     * message in flight at the crash is resent from the ledger (DUP, same packet id), the QoS 1 messages before it
     * are read again from the log: it must not overtake them.
     */
    @Test
    void shouldResendUnacknowledgedMessagesInTheirFirstOrderAfterACrash() throws Exception {
        final String client = "qos-order-crash-sub";
        try (RawMqtt sub = new RawMqtt(broker.mqttPort())) {
            sub.send(RawMqtt.connect311(client, false));
            assertThat(sub.readPacket(WAIT)).as("CONNACK").isNotNull();
            sub.send(RawMqtt.subscribe(1, "x3/#", 2, false));
            assertThat(sub.readPacket(WAIT)).as("SUBACK").isNotNull();
            final Mqtt5BlockingClient pub = Clients.v5(broker, "qos-order-crash-pub");
            for (String[] m : new String[][] {{"q1-a", "1"}, {"q1-b", "1"}, {"q2-c", "2"}}) {
                pub.publishWith().topic("x3/a").qos(MqttQos.fromCode(Integer.parseInt(m[1]))).payload(bytes(m[0]))
                        .send();
            }
            pub.disconnect();
            final List<String> first = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                final byte[] p = sub.readPacket(WAIT);
                assertThat(p).as("PUBLISH %d of 3", i + 1).isNotNull();
                first.add(RawMqtt.publishPayload311(p));
            }
            assertThat(first).containsExactly("q1-a", "q1-b", "q2-c"); // none acknowledged
        }

        broker.crash();

        try (RawMqtt sub = new RawMqtt(broker.mqttPort())) {
            sub.send(RawMqtt.connect311(client, false));
            assertThat(sub.readPacket(WAIT)).as("CONNACK").isNotNull();
            final List<String> again = new ArrayList<>();
            for (byte[] p = sub.readPacket(Duration.ofSeconds(5)); p != null && again.size() < 3;
                 p = sub.readPacket(Duration.ofSeconds(2))) {
                if ((p[0] & 0xF0) == 0x30) {
                    again.add(RawMqtt.publishPayload311(p));
                }
            }
            assertThat(again).as("resent in the order first sent").containsExactly("q1-a", "q1-b", "q2-c");
        }
    }

    /**
     * The other way round: a persistent publisher's QoS 2 PUBLISH resent (DUP) after a crash, as when the crash lost
     * its PUBREC, is stored once; a PUBREL resent after a crash is completed; a new PUBLISH (no DUP) reusing a
     * packet id is a new message.
     */
    @Test
    void shouldStoreAnInboundQos2MessageOnceWhenItIsResentAfterACrash() throws Exception {
        final Mqtt3BlockingClient sub = MqttClient.builder().useMqttVersion3().identifier("qos2-crash-in-sub")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        sub.connectWith().cleanSession(false).send();
        sub.subscribeWith().topicFilter("in2/#").qos(MqttQos.EXACTLY_ONCE).send();
        sub.disconnect();

        try (RawMqtt pub = new RawMqtt(broker.mqttPort())) {
            pub.send(RawMqtt.connect311("qos2-crash-in-pub", false));
            assertThat(pub.readPacket(WAIT)).as("CONNACK").isNotNull();
            pub.send(RawMqtt.publishQos2("in2/a", "in1", 10, false));
            assertThat(pub.readPacket(WAIT)).as("PUBREC 10").containsExactly(0x50, 0, 10);
            pub.send(RawMqtt.publishQos2("in2/a", "in2", 11, false));
            assertThat(pub.readPacket(WAIT)).as("PUBREC 11").containsExactly(0x50, 0, 11);
            pub.send(RawMqtt.pubRel(11));
            assertThat(pub.readPacket(WAIT)).as("PUBCOMP 11").containsExactly(0x70, 0, 11);
        }

        broker.crash();

        try (RawMqtt pub = new RawMqtt(broker.mqttPort())) {
            pub.send(RawMqtt.connect311("qos2-crash-in-pub", false));
            final byte[] connAck = pub.readPacket(WAIT);
            assertThat(connAck).as("CONNACK").isNotNull();
            assertThat(connAck[1] & 0x01).as("session present").isEqualTo(1);
            pub.send(RawMqtt.publishQos2("in2/a", "in1", 10, true)); // as if the PUBREC had been lost
            assertThat(pub.readPacket(WAIT)).as("PUBREC 10 again").containsExactly(0x50, 0, 10);
            pub.send(RawMqtt.pubRel(10));
            assertThat(pub.readPacket(WAIT)).as("PUBCOMP 10").containsExactly(0x70, 0, 10);
            pub.send(RawMqtt.publishQos2("in2/a", "in3", 10, false)); // packet id 10 again: a new message
            assertThat(pub.readPacket(WAIT)).as("PUBREC 10, new").containsExactly(0x50, 0, 10);
            pub.send(RawMqtt.pubRel(10));
            assertThat(pub.readPacket(WAIT)).as("PUBCOMP 10, new").containsExactly(0x70, 0, 10);
        }

        final Mqtt3BlockingClient again = MqttClient.builder().useMqttVersion3().identifier("qos2-crash-in-sub")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        try (Mqtt3BlockingClient.Mqtt3Publishes in = again.publishes(MqttGlobalPublishFilter.ALL)) {
            assertThat(again.connectWith().cleanSession(false).send().isSessionPresent()).isTrue();
            final List<String> got = new ArrayList<>();
            for (Optional<Mqtt3Publish> p = in.receive(5, TimeUnit.SECONDS); p.isPresent();
                 p = in.receive(2, TimeUnit.SECONDS)) {
                got.add(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8));
            }
            assertThat(got).as("each message once, in order").containsExactly("in1", "in2", "in3");
        } finally {
            again.disconnect();
        }
    }

    private static void publish(final String... payloads) {
        final Mqtt5BlockingClient pub = Clients.v5(broker, "qos2-crash-pub-" + System.nanoTime());
        for (String p : payloads) {
            pub.publishWith().topic("x2/a").qos(MqttQos.EXACTLY_ONCE).payload(bytes(p)).send();
        }
        pub.disconnect();
    }
}
