package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Debian's mosquitto_pub and mosquitto_sub (package mosquitto-clients) against the broker, MQTT 3.1.1 and 5.0.
 * Skipped where the package is not installed.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class MosquittoClientsIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/mosquitto_sub")), "mosquitto-clients not installed");
        broker = running;
    }

    /**
     * mosquitto_sub makes a persistent session and exits once subscribed ({@code -c -E}); messages from
     * mosquitto_pub and HiveMQ are queued for it; a second mosquitto_sub with the same client id receives them.
     */
    @Test
    void shouldExchangeMessagesWithMosquittoClients() throws Exception {
        for (String version : List.of("mqttv311", "mqttv5")) {
            final String topic = "mosq/" + version;
            final String id = "mosq-sub-" + version;
            final List<String> session = version.equals("mqttv5") ? List.of("-x", "60") : List.of();
            final Process subscribe = run(List.of("mosquitto_sub", "-V", version, "-q", "1", "-t", "mosq/#", "-c",
                    "-i", id, "-E"), session);
            assertThat(subscribe.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(subscribe.exitValue()).as(output(subscribe)).isZero();

            final Mqtt5BlockingClient hive = Clients.v5(broker, "mosq-hive-" + version);
            try (var in = Clients.publishes(hive)) {
                hive.subscribeWith().topicFilter(topic).qos(MqttQos.AT_LEAST_ONCE).send();
                final Process pub = run(List.of("mosquitto_pub", "-V", version, "-q", "2", "-t", topic, "-m",
                        "from-mosquitto"), List.of());
                assertThat(pub.waitFor(20, TimeUnit.SECONDS)).isTrue();
                assertThat(pub.exitValue()).as(output(pub)).isZero();
                assertThat(Clients.texts(Clients.receive(in, 1))).containsExactly("from-mosquitto");
                hive.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(bytes("from-hivemq")).send();
            } finally {
                hive.disconnect();
            }

            final Process receive = run(List.of("mosquitto_sub", "-V", version, "-q", "1", "-t", "mosq/#", "-c",
                    "-i", id, "-C", "2", "-W", "20", "-v"), session);
            assertThat(receive.waitFor(25, TimeUnit.SECONDS)).isTrue();
            final String out = output(receive);
            assertThat(receive.exitValue()).as(out).isZero();
            assertThat(out).contains(topic + " from-mosquitto").contains(topic + " from-hivemq");
        }
    }

    private static Process run(final List<String> command, final List<String> extra) throws IOException {
        final List<String> all = new java.util.ArrayList<>(command);
        all.addAll(List.of("-h", "127.0.0.1", "-p", Integer.toString(broker.mqttPort())));
        all.addAll(extra);
        return new ProcessBuilder(all).redirectErrorStream(true).start();
    }

    private static String output(final Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
