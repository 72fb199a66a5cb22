package io.junction.conformance.remoting;

import io.junction.conformance.support.BrokerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** One broker process for a test class, and fresh names so tests in it never share topics or groups. */
final class RemotingBroker implements AutoCloseable {
    private static final AtomicInteger SEQ = new AtomicInteger();

    static {
        // Keep the client's own log files out of the home directory.
        System.setProperty("rocketmq.client.logRoot", System.getProperty("java.io.tmpdir") + "/rocketmq-client-logs");
        System.setProperty("rocketmq.client.logLevel", "WARN");
    }

    private static final String[] PORT_KEYS = {"http.port", "remoting.port", "grpc.port", "mqtt.port", "amqp.port"};

    private final Path dir;
    private BrokerProcess process;

    private RemotingBroker(final Path dir, final BrokerProcess process) {
        this.dir = dir;
        this.process = process;
    }

    static RemotingBroker start(final String... settings) {
        return start(dataDir -> { }, settings);
    }

    /** Like {@link #start(String...)}, after {@code prepare} has written into the data directory. */
    static RemotingBroker start(final java.util.function.Consumer<Path> prepare, final String... settings) {
        try {
            final Path dir = Files.createTempDirectory("junction-remoting-it");
            prepare.accept(dir.resolve("data"));
            final BrokerProcess.Builder builder = BrokerProcess.builder(dir.resolve("data"));
            for (int i = 0; i + 1 < settings.length; i += 2) {
                builder.set(settings[i], settings[i + 1]);
            }
            final BrokerProcess process = builder.start();
            process.awaitHealthy(Duration.ofSeconds(30));
            return new RemotingBroker(dir, process);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the broker with SIGTERM and starts it again on the same data directory and ports. */
    void restart() {
        if (process.terminate(Duration.ofSeconds(30)) != 0) {
            throw new AssertionError("the broker did not stop cleanly:\n" + process.output());
        }
        final BrokerProcess.Builder builder = BrokerProcess.builder(dir.resolve("data"));
        for (String key : PORT_KEYS) {
            final String value = process.setting(key);
            if (value != null) {
                builder.set(key, value);
            }
        }
        process.close();
        process = builder.start();
        process.awaitHealthy(Duration.ofSeconds(30));
    }

    /** What clients set as {@code namesrvAddr}. */
    String nameServer() {
        return "127.0.0.1:" + port();
    }

    int port() {
        return Integer.parseInt(process.setting("remoting.port"));
    }

    BrokerProcess process() {
        return process;
    }

    static String unique(final String prefix) {
        return prefix + "-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet() + "-"
                + Long.toString(System.nanoTime() & 0xFFFFFF, 36);
    }

    @Override
    public void close() {
        process.close();
    }
}
