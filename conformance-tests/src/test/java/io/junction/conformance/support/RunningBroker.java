package io.junction.conformance.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One broker under test and its data directory, across restarts: what {@link WithBroker} injects, and what a test
 * needing brokers of its own (a second broker, a crash loop) builds with {@link #builder()}.
 *
 * <p>Addresses are for the current process: after {@link #crash()} or {@link #startOnNewPorts()} the ports differ,
 * so clients are made anew from them.
 */
public final class RunningBroker implements AutoCloseable {

    /** How long a clean stop (or a client's wait for a broker's answer) may take on a loaded machine. */
    public static final Duration DEADLINE = Duration.ofSeconds(30);
    /** How long a start (with recovery) may take to answer {@code /health} on two busy shared cores. */
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);

    /** The listeners' port keys; a restart keeps them all, a crash restart takes fresh ones. */
    private static final List<String> PORT_KEYS =
            List.of("http.port", "remoting.port", "grpc.port", "mqtt.port", "amqp.port", "kafka.port");
    /**
     * A free port can be taken by another socket of this busy machine (a client's ephemeral port) between choosing
     * it and the broker binding it; the broker then stops with "Address already in use" before any client could
     * connect, and starts again on other ports.
     */
    private static final int START_ATTEMPTS = 3;

    private final Path dataDir;
    private final Map<String, String> settings;
    private final List<String> jvmArgs;
    private final Duration startDeadline;
    private BrokerProcess process;

    private RunningBroker(final Builder b) {
        this.dataDir = b.dataDir;
        this.settings = Map.copyOf(b.settings);
        this.jvmArgs = List.copyOf(b.jvmArgs);
        this.startDeadline = b.startDeadline;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A broker of the test's own with these settings on a new data directory, healthy; close it when done. */
    public static RunningBroker start(final Map<String, String> settings) {
        return builder().settings(settings).start();
    }

    public static RunningBroker start() {
        return builder().start();
    }

    /** The broker's data directory (its self-signed TLS certificate is in {@code tls/}). */
    public Path dataDir() {
        return dataDir;
    }

    /** The current process, for its output, exit code, pid or {@code /metrics}. */
    public BrokerProcess process() {
        return process;
    }

    /** The value a key was started with (ports included). */
    public String setting(final String key) {
        return process.setting(key);
    }

    public int port(final String key) {
        return Integer.parseInt(setting(key));
    }

    public int mqttPort() {
        return port("mqtt.port");
    }

    /** {@code tcp://127.0.0.1:port} for Paho. */
    public String mqttUri() {
        return "tcp://127.0.0.1:" + mqttPort();
    }

    public int amqpPort() {
        return port("amqp.port");
    }

    /** {@code amqp://127.0.0.1:port} for Qpid JMS. */
    public String amqpUri() {
        return "amqp://127.0.0.1:" + amqpPort();
    }

    /** {@code host:port}, the Kafka clients' bootstrap servers. */
    public String kafkaBootstrap() {
        return "127.0.0.1:" + port("kafka.port");
    }

    /** {@code host:port}, what RocketMQ Remoting clients set as {@code namesrvAddr}. */
    public String nameServer() {
        return "127.0.0.1:" + port("remoting.port");
    }

    /** {@code host:port} of the gRPC (RocketMQ 5 proxy) listener. */
    public String grpcEndpoint() {
        return "127.0.0.1:" + port("grpc.port");
    }

    /** The HTTP listener's base URL (CloudEvents, admin, health, metrics). */
    public String httpBase() {
        return process.httpBase();
    }

    /** A GET on the HTTP listener. */
    public HttpResponse<String> get(final String path) {
        return process.get(path);
    }

    /** Stops the broker with SIGTERM (it must exit 0) and starts it again on the same data directory and ports. */
    public void restart() {
        stopCleanly();
        startOnSamePorts();
    }

    /** Starts a new process on the same data directory and ports, after the previous one stopped or was killed. */
    public void startOnSamePorts() {
        final Map<String, String> ports = new LinkedHashMap<>();
        PORT_KEYS.forEach(k -> ports.put(k, process.setting(k)));
        launch(ports);
    }

    /** Kills the broker (SIGKILL: nothing flushed or closed) and starts it again on the same data directory. */
    public void crash() {
        kill();
        startOnNewPorts();
    }

    /** SIGKILL; the process's output stays readable until the next start. */
    public void kill() {
        process.kill();
    }

    /** Stops the broker with SIGTERM and fails unless it exits 0. */
    public void stopCleanly() {
        final int exit = process.terminate(DEADLINE);
        if (exit != 0) {
            throw new AssertionError("the broker did not stop cleanly (exit " + exit + "):\n" + process.output());
        }
    }

    /**
     * Starts a new process on the same data directory with fresh ports (the ports of a killed process may linger)
     * and waits until it is healthy; the previous process is closed first.
     */
    public void startOnNewPorts() {
        launch(Map.of());
    }

    /** Kills the process if it still runs, echoes its output and fails if it reported a Netty leak. */
    @Override
    public void close() {
        if (process != null) {
            process.close();
        }
    }

    private void launch(final Map<String, String> ports) {
        close();
        for (int attempt = 1; ; attempt++) {
            final BrokerProcess.Builder b = BrokerProcess.builder(dataDir).jvmArgs(jvmArgs.toArray(String[]::new));
            settings.forEach(b::set);
            ports.forEach(b::set);
            process = b.start();
            try {
                process.awaitHealthy(startDeadline);
                return;
            } catch (final RuntimeException | AssertionError e) {
                final boolean portTaken = ports.isEmpty() && !process.isAlive()
                        && process.stderr().contains("Address already in use");
                process.close(); // never leave a half-started broker behind
                if (!portTaken || attempt == START_ATTEMPTS) {
                    throw e;
                }
                System.out.println("RunningBroker: a chosen port was taken before the broker bound it; new ports");
            }
        }
    }

    /** Settings, JVM options and data directory of a broker, then {@link #start()}. */
    public static final class Builder {
        private final Map<String, String> settings = new LinkedHashMap<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private Path dataDir;
        private DataDirSeed seed = new DataDirSeed.None();
        private Duration startDeadline = START_DEADLINE;

        private Builder() {
        }

        /** A {@code --set key=value}; for a port key it replaces the free port. */
        public Builder set(final String key, final String value) {
            settings.put(key, value);
            return this;
        }

        public Builder settings(final Map<String, String> more) {
            settings.putAll(more);
            return this;
        }

        public Builder jvmArgs(final String... args) {
            jvmArgs.addAll(List.of(args));
            return this;
        }

        /** Written into the data directory before the first start. */
        public Builder seed(final DataDirSeed seed) {
            this.seed = seed;
            return this;
        }

        /** A data directory of the test's own (e.g. on a small file system); by default a new temporary one. */
        public Builder dataDir(final Path dir) {
            this.dataDir = dir;
            return this;
        }

        /** How long one start may take to become healthy (recovery of a large store takes longer). */
        public Builder startDeadline(final Duration deadline) {
            this.startDeadline = deadline;
            return this;
        }

        /** Seeds the data directory, starts the broker and waits until {@code /health} answers 200. */
        public RunningBroker start() {
            try {
                if (dataDir == null) {
                    dataDir = Files.createTempDirectory("junction-it").resolve("data");
                }
                seed.write(dataDir);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
            final RunningBroker broker = new RunningBroker(this);
            broker.launch(Map.of());
            return broker;
        }
    }
}
