package io.junction.conformance.mqtt;

import io.junction.conformance.support.BrokerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** One broker jar for a test class, with MQTT settings that keep the time-outs short. */
final class MqttTestBroker implements AutoCloseable {
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private final Path dir;
    private final Map<String, String> extra;
    private BrokerProcess process;

    private MqttTestBroker(final Path dir, final Map<String, String> extra) {
        this.dir = dir;
        this.extra = extra;
    }

    static MqttTestBroker start() {
        return start(Map.of());
    }

    /** A broker with these settings on top of the short MQTT time-outs. */
    static MqttTestBroker start(final Map<String, String> settings) {
        try {
            final MqttTestBroker broker = new MqttTestBroker(Files.createTempDirectory("junction-mqtt-it"), settings);
            broker.launch(null);
            return broker;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Restarts on the same data directory and MQTT port (a clean stop, then a new process). */
    void restart() {
        final String port = process.setting("mqtt.port");
        process.terminate(DEADLINE);
        process.close();
        launch(port);
    }

    /** Kills the broker (SIGKILL, nothing flushed or closed) and starts it again on the same data directory. */
    void crash() {
        process.kill();
        process.close();
        launch(null); // new ports: the killed process's may linger
    }

    private void launch(final String port) {
        final BrokerProcess.Builder b = BrokerProcess.builder(dir.resolve("data"))
                .set("mqtt.connect-timeout-ms", "1000")
                .set("mqtt.max-packet-size", "64k");
        extra.forEach(b::set);
        if (port != null) {
            b.set("mqtt.port", port);
        }
        process = b.start();
        try {
            process.awaitHealthy(DEADLINE);
        } catch (final RuntimeException | AssertionError e) {
            process.close(); // never leave a half-started broker behind
            throw e;
        }
    }

    int port() {
        return Integer.parseInt(process.setting("mqtt.port"));
    }

    String uri() {
        return "tcp://127.0.0.1:" + port();
    }

    BrokerProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.close();
    }
}
