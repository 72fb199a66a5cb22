package io.junction.conformance.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.junction.conformance.support.BrokerProcess;
import io.junction.conformance.support.RunningBroker;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.meta.TopicConfig;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker jar started, probed and stopped as an operator would. */
class BrokerLifecycleIT {

    /**
     * Start to {@code /health} 200 on an empty data directory. The product bar is 1.5 s (measured and printed here,
     * and judged on a quiet machine with {@code -Djunction.it.start-bound-ms=1500}); by default this test only guards
     * against gross regressions, because a timed assertion on a shared CI machine says more about the machine.
     */
    private static final Duration START_BOUND =
            Duration.ofMillis(Long.getLong("junction.it.start-bound-ms", 5000));
    private static final int START_ATTEMPTS = 3;
    /** Above this many runnable tasks per core, the machine is too busy for a timing bar to mean anything. */
    private static final double OVERLOAD_FACTOR = 1.5;
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    /** The store's clean-shutdown marker: present while it runs, removed by a clean close. */
    private static final String ABORT_MARKER = "abort";

    @TempDir
    Path tmp;

    /**
     * The bar is the broker's start-up, not the machine's mood: on a shared two-core machine another process can take
     * the CPU for a second, so the best of up to three starts (each on a fresh, empty data directory) must meet it,
     * and a miss on an overloaded machine is reported as skipped instead of failed.
     */
    @Test
    void shouldBeHealthyWithinTheStartBoundOnAnEmptyDataDir() {
        Duration best = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS && (best == null || best.compareTo(START_BOUND) > 0);
             attempt++) {
            final Path data = tmp.resolve("data-" + attempt);
            try (BrokerProcess broker = BrokerProcess.builder(data).start()) {
                final Duration startToHealthy = broker.awaitHealthy(DEADLINE);
                System.out.println("start to /health 200, attempt " + attempt + ": " + startToHealthy.toMillis()
                        + " ms");
                best = best == null || startToHealthy.compareTo(best) < 0 ? startToHealthy : best;

                final HttpResponse<String> health = broker.get("/health");
                assertThat(health.body()).contains("\"status\":\"UP\"")
                        .contains("\"http\":\"" + broker.httpBase() + "\"");
                assertThat(broker.stdout()).containsPattern("Junction ready in \\d+ ms: (\\S+ )*http=" + broker.httpBase()
                        + " data=" + data.toAbsolutePath());
                assertThat(broker.terminate(DEADLINE)).isZero();
            }
        }
        if (best.compareTo(START_BOUND) > 0) {
            // Slow on a machine busy with other work says nothing about the broker: skip (loudly) rather than fail.
            final double load = loadAverage();
            final int cores = Runtime.getRuntime().availableProcessors();
            assumeTrue(load <= OVERLOAD_FACTOR * cores, "best start to /health 200 was " + best.toMillis()
                    + " ms, above the " + START_BOUND.toMillis() + " ms bound, but the machine is overloaded (load "
                    + load + " on " + cores + " cores); not judged");
        }
        assertThat(best).as("best start to /health 200").isLessThanOrEqualTo(START_BOUND);
    }

    /**
     * {@code java -jar junction.jar} without a heap option: the broker runs in a child JVM with a bounded heap; the
     * launcher's exit code is the broker's, a SIGTERM stops both gracefully, and a SIGKILL of the launcher leaves no
     * broker behind (the data directory can be used again at once).
     */
    @Test
    void shouldRunTheBrokerWithABoundedHeapWhenStartedWithoutOne() {
        final Path data = tmp.resolve("launched");
        final ProcessHandle child;
        try (BrokerProcess launcher = BrokerProcess.builder(data).viaLauncher().start()) {
            launcher.awaitHealthy(DEADLINE);
            child = ProcessHandle.of(launcher.pid()).orElseThrow().children().findFirst()
                    .orElseThrow(() -> new AssertionError("no child JVM:\n" + launcher.output()));
            assertThat(child.info().arguments().map(List::of).orElseThrow())
                    .contains("-Xmx256m", "-XX:MaxDirectMemorySize=128m", "-Djunction.launched=true");
            assertThat(launcher.get("/health").statusCode()).isEqualTo(200);
            assertThat(launcher.terminate(DEADLINE)).isZero();
            assertThat(launcher.stdout()).contains("Junction stopped");
        }
        assertThat(child.isAlive()).isFalse();

        final ProcessHandle orphan;
        try (BrokerProcess launcher = BrokerProcess.builder(data).viaLauncher().start()) {
            launcher.awaitHealthy(DEADLINE);
            orphan = ProcessHandle.of(launcher.pid()).orElseThrow().children().findFirst().orElseThrow();
            launcher.kill();
            await().atMost(DEADLINE).until(() -> !orphan.isAlive());
            assertThat(launcher.stderr()).contains("the launching process is gone");
        }
        // The broker stopped (gracefully: its lock is released), so the same directory starts again at once.
        try (BrokerProcess again = BrokerProcess.builder(data).start()) {
            again.awaitHealthy(DEADLINE);
            assertThat(again.terminate(DEADLINE)).isZero();
        }
    }

    /** The 1-minute load average, or 0 where the OS does not report one. */
    private static double loadAverage() {
        return Math.max(0, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    @Test
    void shouldExportTheBrokersMetrics() throws Exception {
        final Path data = tmp.resolve("data");
        // A topic that exists before start: the broker registers its traffic counters at zero.
        try (MessageStore store = MessageStore.open(StoreConfig.builder(data).build())) {
            store.topics().createOrUpdate(TopicConfig.of("orders", 4)).get();
        }
        try (RunningBroker broker = RunningBroker.builder().dataDir(data).start()) {

            final HttpResponse<String> metrics = broker.get("/metrics");

            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
            assertThat(metrics.body())
                    .contains("junction_messages_in_total{topic=\"orders\"} 0.0")
                    .contains("junction_bytes_in_total{topic=\"orders\"} 0.0")
                    .contains("junction_messages_out_total{topic=\"orders\"} 0.0")
                    .contains("junction_bytes_out_total{topic=\"orders\"} 0.0")
                    .contains("junction_append_latency_seconds_count")
                    .contains("junction_store_disk_used_bytes")
                    .contains("junction_store_disk_free_bytes")
                    .containsPattern("junction_store_topics [1-9]")
                    .contains("junction_store_recovered_from_crash 0.0")
                    .contains("junction_connections{protocol=\"http\"}")
                    .contains("jvm_memory_used_bytes")
                    .contains("jvm_gc_")
                    .contains("process_cpu_usage");
            assertThat(broker.process().terminate(DEADLINE)).isZero();
        }
    }

    @Test
    void shouldStopOnSigtermWithExitZeroAndACleanShutdownMarker() {
        final Path data = tmp.resolve("data");
        try (RunningBroker broker = RunningBroker.builder().dataDir(data).start()) {
            assertThat(data.resolve(ABORT_MARKER)).as("marker while running").exists();

            assertThat(broker.process().terminate(DEADLINE)).as("exit code after SIGTERM").isZero();

            assertThat(data.resolve(ABORT_MARKER)).as("marker after a clean stop").doesNotExist();
            assertThat(broker.process().stdout()).contains("Junction stopping").contains("Junction stopped");
            assertThat(broker.process().stderr()).isEmpty();
        }
        // The next start finds a clean store.
        try (RunningBroker again = RunningBroker.builder().dataDir(data).start()) {
            assertThat(again.get("/metrics").body()).contains("junction_store_recovered_from_crash 0.0");
            assertThat(again.process().terminate(DEADLINE)).isZero();
        }
    }

    @Test
    void shouldReportARecoveryAfterACrash() {
        final Path data = tmp.resolve("data");
        try (RunningBroker broker = RunningBroker.builder().dataDir(data).start()) {
            broker.kill();
            assertThat(data.resolve(ABORT_MARKER)).exists();
        }
        try (RunningBroker again = RunningBroker.builder().dataDir(data).start()) {
            assertThat(again.get("/metrics").body()).contains("junction_store_recovered_from_crash 1.0");
            assertThat(again.process().terminate(DEADLINE)).isZero();
        }
    }

    @Test
    void shouldAnswerUnknownPathsAndWrongMethods() throws Exception {
        try (RunningBroker broker = RunningBroker.builder().dataDir(tmp.resolve("data")).start()) {

            assertThat(broker.get("/no-such-path").statusCode()).isEqualTo(404);
            final HttpResponse<String> post = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(broker.httpBase() + "/metrics"))
                            .POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(broker.process().terminate(DEADLINE)).isZero();
        }
    }
}
