package io.junction.conformance.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar junction.jar} as a child process.
 *
 * <p>Every listener gets a free port (overridable with {@link Builder#set}), output goes to files next to the data
 * directory, and the child runs with Netty's paranoid leak detection; {@link #close()} fails the test if the child
 * reported a leak. Waiting is always polling with a deadline, never sleeping.
 */
public final class BrokerProcess implements AutoCloseable {

    /** The standard front-ends' port keys; all get free ports so a test broker never needs the default ports. */
    private static final List<String> PORT_KEYS =
            List.of("http.port", "remoting.port", "grpc.port", "mqtt.port", "amqp.port", "kafka.port");

    private static final Duration POLL = Duration.ofMillis(20);

    private final Process process;
    private final long startedNanos;
    private final long startedAtMillis;
    private final Path stdout;
    private final Path stderr;
    private final Map<String, String> settings;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    private boolean closed;

    private BrokerProcess(final Process process, final long startedNanos, final long startedAtMillis,
                          final Path stdout, final Path stderr, final Map<String, String> settings) {
        this.process = process;
        this.startedNanos = startedNanos;
        this.startedAtMillis = startedAtMillis;
        this.stdout = stdout;
        this.stderr = stderr;
        this.settings = settings;
    }

    /** A broker keeping its data in {@code dataDir}; its logs go to {@code dataDir}'s parent. */
    public static Builder builder(final Path dataDir) {
        return new Builder(dataDir);
    }

    /** The jar under test: {@code -Djunction.jar}, set by the module's failsafe configuration. */
    public static Path jar() {
        final Path jar = Path.of(System.getProperty("junction.jar", "../broker/target/junction.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no broker jar at " + jar.toAbsolutePath()
                    + ": run the build through the reactor (mvn verify) so the broker module packages it first");
        }
        return jar;
    }

    /**
     * The command that runs the jar under test as a one-shot command-line tool ({@code java -jar junction.jar args},
     * e.g. {@code admin ...}) in a JVM of its own. That JVM maps the brokers' class-data archive and compiles with C1
     * only: it lives for one request, so loading classes and JIT warm-up are most of its time (measured on a quiet
     * machine: 0.95 s to 0.65 s a run, 1.2 to 0.6 CPU-s).
     */
    public static List<String> cliCommand(final String... args) {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(BrokerClassArchive.jvmArgs());
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-jar", jar().toAbsolutePath().toString()));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Waits until {@code /health} answers 200.
     *
     * @return the time from spawning the process to the first 200
     * @throws AssertionError if the process exits first (with its output) or the deadline passes
     */
    public Duration awaitHealthy(final Duration deadline) {
        final long[] healthyAt = new long[1];
        await("broker /health 200").atMost(deadline).pollDelay(Duration.ZERO).pollInterval(POLL).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("the broker exited with " + process.exitValue() + " before it was healthy:\n"
                        + output());
            }
            if (healthStatus() == 200) {
                healthyAt[0] = System.nanoTime();
                return true;
            }
            return false;
        });
        return Duration.ofNanos(healthyAt[0] - startedNanos);
    }

    /** Waits for the process to exit by itself and returns its exit code. */
    public int awaitExit(final Duration deadline) {
        try {
            if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the broker did not exit within " + deadline + ":\n" + output());
            }
            return process.exitValue();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Sends SIGTERM and returns the exit code. */
    public int terminate(final Duration deadline) {
        process.destroy(); // SIGTERM on Linux
        return awaitExit(deadline);
    }

    /** Sends SIGKILL (a crash) and waits for the process to go. */
    public void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(10));
    }

    /** The wall-clock time just before the process was spawned (anything the broker reports as its boot is later). */
    public long startedAtMillis() {
        return startedAtMillis;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The HTTP listener's base URL. */
    public String httpBase() {
        return "http://127.0.0.1:" + settings.get("http.port");
    }

    /** The value a key was started with (ports included). */
    public String setting(final String key) {
        return settings.get(key);
    }

    public HttpResponse<String> get(final String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(httpBase() + path)).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    public String stdout() {
        return read(stdout);
    }

    public String stderr() {
        return read(stderr);
    }

    /** Both streams, for failure messages. */
    public String output() {
        return "--- stdout ---\n" + stdout() + "--- stderr ---\n" + stderr();
    }

    /**
     * Kills the process if it still runs, echoes its output to this JVM's stdout (so the build log, which CI scans
     * for leak reports, has it) and fails if the child reported a Netty leak.
     */
    @Override
    public void close() {
        if (closed) {
            return; // a handle closed by its test and again by the fixture echoes and checks once
        }
        closed = true;
        if (process.isAlive()) {
            kill();
        }
        final String output = output();
        System.out.println("--- broker process " + process.pid() + " ---\n" + output);
        if (output.contains("LEAK:")) {
            throw new AssertionError("the broker reported a Netty buffer leak:\n" + output);
        }
    }

    private int healthStatus() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(httpBase() + "/health"))
                    .timeout(Duration.ofMillis(500)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (final IOException e) {
            return -1; // not listening yet
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String read(final Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Collects settings and arguments, then spawns the process. */
    public static final class Builder {
        private final Path dataDir;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private final List<String> extraArgs = new ArrayList<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private boolean viaLauncher;
        private boolean classArchive = true;

        private Builder(final Path dataDir) {
            this.dataDir = dataDir;
            PORT_KEYS.forEach(k -> settings.put(k, Integer.toString(FreePorts.next())));
        }

        /** A {@code --set key=value}; replaces the free port for port keys. */
        public Builder set(final String key, final String value) {
            settings.put(key, value);
            return this;
        }

        /** Extra command-line arguments after the generated ones. */
        public Builder args(final String... args) {
            extraArgs.addAll(List.of(args));
            return this;
        }

        /** Extra JVM options, e.g. {@code -Xmx256m}. */
        public Builder jvmArgs(final String... args) {
            jvmArgs.addAll(List.of(args));
            return this;
        }

        /**
         * Lets the jar start the broker in a child JVM with a bounded heap when no heap option is given, as a user's
         * {@code java -jar} does. Without it the broker runs in the spawned JVM itself, so the test's signals and
         * pid reach the broker.
         */
        public Builder viaLauncher() {
            viaLauncher = true;
            return this;
        }

        /** Loads the broker's classes from its jar, not {@link BrokerClassArchive}'s archive (which it then makes). */
        Builder withoutClassArchive() {
            classArchive = false;
            return this;
        }

        /** Spawns the broker; does not wait for anything. */
        public BrokerProcess start() {
            final Path logs = dataDir.toAbsolutePath().getParent();
            final String name = dataDir.getFileName() + "-" + System.nanoTime();
            final Path out = logs.resolve(name + ".stdout.log");
            final Path err = logs.resolve(name + ".stderr.log");
            final List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Dio.netty.leakDetection.level=paranoid");
            if (!viaLauncher) {
                command.add("-Djunction.relaunch=false");
            }
            if (classArchive) {
                command.addAll(BrokerClassArchive.jvmArgs());
            }
            command.addAll(jvmArgs);
            command.add("-jar");
            command.add(jar().toAbsolutePath().toString());
            command.add("--data-dir");
            command.add(dataDir.toString());
            settings.forEach((k, v) -> {
                command.add("--set");
                command.add(k + "=" + v);
            });
            command.addAll(extraArgs);
            try {
                final long started = System.nanoTime();
                final long startedAt = System.currentTimeMillis();
                final Process process = new ProcessBuilder(command)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
                return new BrokerProcess(process, started, startedAt, out, err, Map.copyOf(settings));
            } catch (final IOException e) {
                throw new UncheckedIOException("cannot start " + command, e);
            }
        }
    }
}
