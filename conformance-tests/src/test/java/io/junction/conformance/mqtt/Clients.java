package io.junction.conformance.mqtt;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.junction.conformance.support.RunningBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** HiveMQ client helpers. */
final class Clients {
    private Clients() {
    }

    static Mqtt5BlockingClient v5(final RunningBroker broker, final String id) {
        final Mqtt5BlockingClient c = MqttClient.builder().useMqttVersion5().identifier(id).serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        c.connect();
        return c;
    }

    static Mqtt3BlockingClient v3(final RunningBroker broker, final String id) {
        final Mqtt3BlockingClient c = MqttClient.builder().useMqttVersion3().identifier(id).serverHost("127.0.0.1")
                .serverPort(broker.mqttPort()).buildBlocking();
        c.connect();
        return c;
    }

    /** A stream of everything the client receives; open it before subscribing. */
    static Mqtt5BlockingClient.Mqtt5Publishes publishes(final Mqtt5BlockingClient c) {
        return c.publishes(MqttGlobalPublishFilter.ALL);
    }

    /** Receives exactly {@code n} publishes, each within 10 s. */
    static List<Mqtt5Publish> receive(final Mqtt5BlockingClient.Mqtt5Publishes publishes, final int n)
            throws InterruptedException {
        final List<Mqtt5Publish> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final Optional<Mqtt5Publish> p = publishes.receive(10, TimeUnit.SECONDS);
            if (p.isEmpty()) {
                throw new AssertionError("received only " + got.size() + " of " + n + ": " + texts(got));
            }
            got.add(p.get());
        }
        return got;
    }

    /** Asserts nothing more arrives within {@code millis}. */
    static void assertNoMore(final Mqtt5BlockingClient.Mqtt5Publishes publishes, final long millis)
            throws InterruptedException {
        final Optional<Mqtt5Publish> p = publishes.receive(millis, TimeUnit.MILLISECONDS);
        if (p.isPresent()) {
            throw new AssertionError("unexpected publish on " + p.get().getTopic() + ": " + text(p.get()));
        }
    }

    static String text(final Mqtt5Publish p) {
        return new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    static List<String> texts(final List<Mqtt5Publish> ps) {
        return ps.stream().map(Clients::text).toList();
    }

    static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
