package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static io.junction.conformance.mqtt.Clients.publishes;
import static io.junction.conformance.mqtt.Clients.receive;
import static io.junction.conformance.mqtt.Clients.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MQTT 5 chapter 6 (WebSocket transport) at /mqtt on the shared HTTP port, talking to a TCP client. */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class Chapter6_WebSocketIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldSpeakMqttOverWebSocket() throws Exception {
        final int httpPort = broker.port("http.port");
        final Mqtt5BlockingClient ws = MqttClient.builder().useMqttVersion5().identifier("ws-client")
                .serverHost("127.0.0.1").serverPort(httpPort).webSocketConfig().serverPath("mqtt")
                .applyWebSocketConfig().buildBlocking();
        assertThat(ws.connect().getReasonCode()).isEqualTo(Mqtt5ConnAckReasonCode.SUCCESS);
        final Mqtt5BlockingClient tcp = Clients.v5(broker, "tcp-client");
        try (var wsIn = publishes(ws); var tcpIn = publishes(tcp)) {
            ws.subscribeWith().topicFilter("web/#").qos(MqttQos.AT_LEAST_ONCE).send();
            tcp.subscribeWith().topicFilter("web/#").qos(MqttQos.AT_LEAST_ONCE).send();
            tcp.publishWith().topic("web/from-tcp").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("hello ws")).send();
            ws.publishWith().topic("web/from-ws").qos(MqttQos.EXACTLY_ONCE).payload(bytes("hello tcp")).send();
            assertThat(texts(receive(wsIn, 2))).containsExactlyInAnyOrder("hello ws", "hello tcp");
            assertThat(texts(receive(tcpIn, 2))).containsExactlyInAnyOrder("hello ws", "hello tcp");
        } finally {
            ws.disconnect();
            tcp.disconnect();
        }
    }
}
