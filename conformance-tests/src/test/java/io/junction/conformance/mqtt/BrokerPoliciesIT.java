package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3SubAckException;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAck;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAckReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Broker-wide MQTT policies an operator sets: a Server Keep Alive imposed on MQTT 5 clients
 * ({@code mqtt.server-keep-alive}, 3.2.2.3.14) and topic filters nobody may subscribe to
 * ({@code mqtt.deny-subscriptions}).
 */
@WithBroker(settings = {
        "mqtt.connect-timeout-ms=1000",
        "mqtt.max-packet-size=64k",
        "mqtt.server-keep-alive=1",
        "mqtt.deny-subscriptions=$SYS/#,=#"})
class BrokerPoliciesIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldTellMqtt5ClientsTheServerKeepAliveAndHoldThemToIt() throws Exception {
        final Mqtt5BlockingClient hive = MqttClient.builder().useMqttVersion5().identifier("told-keep-alive")
                .serverHost("127.0.0.1").serverPort(broker.mqttPort()).buildBlocking();
        final Mqtt5ConnAck ack = hive.connectWith().keepAlive(60).send();
        assertThat(ack.getServerKeepAlive()).hasValue(1);
        // The client follows the server's keep alive (PINGREQ every second), so it stays connected well past 1.5 s.
        TimeUnit.MILLISECONDS.sleep(3_500); // the time span under test, not a wait for an outcome
        assertThat(hive.getState().isConnected()).isTrue();
        hive.disconnect();

        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            final byte[] connect = RawMqtt.connect5("silent", true, 0, 0);
            connect[10] = 0x02; // keep alive 600 s asked for (0x0258)
            connect[11] = 0x58;
            raw.send(connect);
            assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            final long start = System.nanoTime();
            final byte[] d = raw.readPacket(Duration.ofSeconds(10));
            final long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(d).as("DISCONNECT for the server's keep alive, not the 600 s asked for").isNotNull();
            assertThat(d[0]).isEqualTo((byte) 0xE0);
            assertThat(d[1] & 0xFF).isEqualTo(0x8D); // keep alive timeout
            assertThat(waitedMs).as("1.5 server keep-alive intervals").isBetween(1_200L, 3_500L);
        }
    }

    @Test
    void shouldLeaveMqtt311ClientsTheirOwnKeepAlive() {
        try (RawMqtt raw = new RawMqtt(broker.mqttPort())) {
            raw.send(RawMqtt.connect311("own-keep-alive", 60));
            assertThat(raw.readPacket(Duration.ofSeconds(5))[0]).isEqualTo((byte) 0x20);
            assertThat(raw.closedWithin(Duration.ofMillis(3_000))).as("closed by a keep alive not its own").isFalse();
        }
    }

    @Test
    void shouldRefuseDeniedFiltersAndGrantTheOthersOfTheSameSubscribe() {
        final Mqtt5BlockingClient v5 = Clients.v5(broker, "denied-v5");
        Mqtt5SubAck ack;
        try {
            ack = v5.subscribeWith()
                    .addSubscription().topicFilter("sensors/#").qos(MqttQos.AT_LEAST_ONCE).applySubscription()
                    .addSubscription().topicFilter("#").qos(MqttQos.AT_LEAST_ONCE).applySubscription()
                    .addSubscription().topicFilter("$SYS/broker/+").qos(MqttQos.AT_LEAST_ONCE).applySubscription()
                    .addSubscription().topicFilter("$share/g/$SYS/x").qos(MqttQos.AT_LEAST_ONCE).applySubscription()
                    .send();
        } catch (final Mqtt5SubAckException e) {
            ack = e.getMqttMessage();
        }
        assertThat(ack.getReasonCodes()).containsExactly(Mqtt5SubAckReasonCode.GRANTED_QOS_1,
                Mqtt5SubAckReasonCode.NOT_AUTHORIZED, Mqtt5SubAckReasonCode.NOT_AUTHORIZED,
                Mqtt5SubAckReasonCode.NOT_AUTHORIZED);
        assertThat(ack.getReasonString().map(Object::toString).orElse("")).contains("#: ").contains("$SYS/broker/+: ")
                .doesNotContain("sensors/#");
        // The granted filter works: a message published under it arrives.
        try (Mqtt5BlockingClient.Mqtt5Publishes publishes = Clients.publishes(v5)) {
            final Mqtt5BlockingClient pub = Clients.v5(broker, "denied-pub");
            pub.publishWith().topic("sensors/a").qos(MqttQos.AT_LEAST_ONCE).payload(Clients.bytes("21")).send();
            pub.disconnect();
            assertThat(Clients.texts(Clients.receive(publishes, 1))).containsExactly("21");
        } catch (final InterruptedException e) {
            throw new AssertionError(e);
        }
        v5.disconnect();

        final Mqtt3BlockingClient v3 = Clients.v3(broker, "denied-v3");
        Mqtt3SubAck ack3;
        try {
            ack3 = v3.subscribeWith()
                    .addSubscription().topicFilter("#").qos(MqttQos.AT_MOST_ONCE).applySubscription()
                    .addSubscription().topicFilter("a/#").qos(MqttQos.AT_MOST_ONCE).applySubscription()
                    .send();
        } catch (final Mqtt3SubAckException e) {
            ack3 = e.getMqttMessage();
        }
        assertThat(ack3.getReturnCodes()).containsExactly(Mqtt3SubAckReturnCode.FAILURE,
                Mqtt3SubAckReturnCode.SUCCESS_MAXIMUM_QOS_0);
        v3.disconnect();
    }
}
