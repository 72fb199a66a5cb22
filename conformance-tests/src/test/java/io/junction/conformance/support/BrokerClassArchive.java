package io.junction.conformance.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

/**
 * A class-data-sharing archive of the broker jar (JDK 17 dynamic AppCDS), made once per test run and mapped by every
 * broker process the tests start after that.
 *
 * <p>Why: the suite starts a broker process more than a hundred times, and each one loads, verifies and links the same
 * few thousand classes of an 80 MB jar before it answers {@code /health}; on two shared cores that is about half the
 * CPU of a start (measured: 2.3 to 3.1 CPU-s to healthy without the archive, 1.0 to 1.5 with it). The archive changes
 * nothing the broker does: a JVM that cannot use it (another jar, other VM options) loads the classes as usual.
 *
 * <p>The archive lives at {@code -Djunction.cds.archive} (set by the module's failsafe configuration; without it no
 * archive is made or used). It is made by one training broker that starts on a fresh data directory, becomes healthy
 * and stops with SIGTERM (the JVM writes the archive as it exits), and made anew whenever the jar is newer than it.
 * If training fails, brokers start without an archive and the reason is printed: it only costs time.
 */
final class BrokerClassArchive {
    /** CDS reports (e.g. classes it skips while dumping) go to stdout by default; a test may read broker stdout. */
    private static final String QUIET = "-Xlog:cds*=off";
    private static final Duration TRAINING_DEADLINE = Duration.ofSeconds(90);

    private static List<String> jvmArgs;

    private BrokerClassArchive() {
    }

    /** The JVM options of a broker process that maps the archive, making it first if needed; empty if there is none. */
    static synchronized List<String> jvmArgs() {
        if (jvmArgs == null) {
            jvmArgs = prepare();
        }
        return jvmArgs;
    }

    private static List<String> prepare() {
        final String location = System.getProperty("junction.cds.archive", "");
        if (location.isBlank()) {
            return List.of();
        }
        final Path archive = Path.of(location).toAbsolutePath();
        try {
            if (!isCurrent(archive)) {
                train(archive);
            }
            return List.of("-XX:SharedArchiveFile=" + archive, QUIET);
        } catch (final RuntimeException | AssertionError | IOException e) {
            System.out.println("BrokerClassArchive: brokers start without a class-data archive: " + e);
            return List.of();
        }
    }

    private static boolean isCurrent(final Path archive) throws IOException {
        return Files.isRegularFile(archive)
                && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(BrokerProcess.jar())) > 0;
    }

    private static void train(final Path archive) throws IOException {
        Files.createDirectories(archive.getParent());
        final Path dir = Files.createTempDirectory("junction-cds");
        final Path dumped = dir.resolve("junction.jsa");
        try (BrokerProcess broker = BrokerProcess.builder(dir.resolve("data")).withoutClassArchive()
                .jvmArgs("-XX:ArchiveClassesAtExit=" + dumped, QUIET).start()) {
            broker.awaitHealthy(TRAINING_DEADLINE);
            final int exit = broker.terminate(TRAINING_DEADLINE);
            if (exit != 0 || !Files.isRegularFile(dumped)) {
                throw new IllegalStateException("the training broker exited " + exit + " without an archive:\n"
                        + broker.output());
            }
        }
        // Whole or not at all: a broker starting meanwhile never maps a half-written file.
        Files.move(dumped, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
