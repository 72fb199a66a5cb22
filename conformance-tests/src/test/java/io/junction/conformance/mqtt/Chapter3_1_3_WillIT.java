package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static io.junction.conformance.mqtt.Clients.publishes;
import static io.junction.conformance.mqtt.Clients.receive;
import static io.junction.conformance.mqtt.Clients.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 section 3.1.3.2 (will properties) and 3.1.2.5 (will flag): published on failure, not on DISCONNECT. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter3_1_3_WillIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldPublishTheWillWhenTheConnectionDropsButNotAfterDisconnect() throws Exception {
        final Mqtt5BlockingClient watcher = Clients.v5(broker, "will-watcher");
        try (var in = publishes(watcher)) {
            watcher.subscribeWith().topicFilter("wills/#").qos(MqttQos.AT_LEAST_ONCE).send();

            final Mqtt5BlockingClient polite = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5()
                    .identifier("polite").serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
            polite.connectWith().willPublish().topic("wills/polite").payload(bytes("polite died"))
                    .qos(MqttQos.AT_LEAST_ONCE).applyWillPublish().send();
            polite.disconnect();

            try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
                raw.send(RawMqtt.connect311WithWill("crasher", "wills/crasher", "crasher died"));
                assertThat(raw.readPacketType(Duration.ofSeconds(5))).isEqualTo(0x20);
            } // socket closed without DISCONNECT

            assertThat(texts(receive(in, 1))).containsExactly("crasher died");
            Clients.assertNoMore(in, 500);
        } finally {
            watcher.disconnect();
        }
    }

    @Test
    void shouldDelayTheWillAndDropItWhenTheSessionResumesInTime() throws Exception {
        final Mqtt5BlockingClient watcher = Clients.v5(broker, "delay-watcher");
        try (var in = publishes(watcher)) {
            watcher.subscribeWith().topicFilter("wills5/#").qos(MqttQos.AT_LEAST_ONCE).send();

            try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
                raw.send(RawMqtt.connect5WithWill("delayed", true, 60, 2, "wills5/delayed", "late will"));
                assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            }
            Clients.assertNoMore(in, 1000); // not before the 2 s delay
            assertThat(texts(receive(in, 1))).containsExactly("late will");

            try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
                raw.send(RawMqtt.connect5WithWill("resumed", true, 60, 3, "wills5/resumed", "never sent"));
                assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            }
            try (RawMqtt again = new RawMqtt(broker.mqttPort())) {
                again.send(RawMqtt.connect5("resumed", false, 60, 0));
                assertThat(again.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
                Clients.assertNoMore(in, 4000); // the session came back within the delay: no will
                again.send(new byte[] {(byte) 0xE0, 0}); // DISCONNECT, normal
            }
        } finally {
            watcher.disconnect();
        }
    }
}
