package io.junction.bench.store;

import io.junction.bench.measure.LatencyRecorder;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.Message;
import io.junction.core.message.MessageIds;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Load main for the commit-log append path, in one run and against one disk:
 * <ol>
 *   <li>raw: sequential 1 MiB {@code FileChannel} writes of the volume the ASYNC phase will append, plus one force
 *   (the ceiling); repeated after the store phases, and the faster of the two is the reference;</li>
 *   <li>ASYNC: {@code --threads} producers, {@code --outstanding} sends in flight each, {@code --messages} 1 KiB
 *   messages; the clock includes the last acknowledgement and the close that forces the log;</li>
 *   <li>SYNC: {@code --sync-threads} appenders with one send in flight each for {@code --sync-seconds}; rate and
 *   latency percentiles;</li>
 * </ol>
 * then a summary with the acceptance bars (ASYNC &ge; 300,000 msg/s and &ge; 60 % of raw; SYNC(64) &ge; 50,000
 * msg/s). Every phase uses a fresh directory under {@code --dir}; all are deleted at the end.
 *
 * <pre>
 * mvn -B -q -o -pl benchmarks -am install -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.junction.bench.store.AppendBenchmark [--messages N] [--threads N]
 *      [--sync-seconds S] [--dir PATH] ...   (--help lists all options)
 * </pre>
 *
 * Exit status: 0 when every bar that was measured passed, 2 when one failed, 1 on a usage or run error.
 */
public final class AppendBenchmark {
    static final String TOPIC = "bench";
    static final int QUEUES = 8;

    static final double ASYNC_MIN_RATE = 300_000;
    static final double ASYNC_MIN_RAW_SHARE = 0.60;
    static final double SYNC_MIN_RATE = 50_000;
    static final int SYNC_BAR_THREADS = 64;

    private static final PrintStream OUT = System.out;

    private AppendBenchmark() {
    }

    public static void main(final String[] args) {
        final AppendOptions options;
        try {
            options = AppendOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.println(AppendOptions.USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : 1);
            return;
        }
        if (!options.verbose()) {
            quietLogging();
        }
        int status;
        Path root = null;
        try {
            Files.createDirectories(options.dir());
            root = Files.createTempDirectory(options.dir(), "junction-append-bench-");
            final Path created = root;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(created), "bench-cleanup"));
            status = run(options, root);
        } catch (Exception e) {
            System.err.println("AppendBenchmark failed: " + e);
            e.printStackTrace();
            status = 1;
        } finally {
            if (root != null) {
                deleteTree(root);
            }
        }
        System.exit(status);
    }

    private static int run(final AppendOptions o, final Path root) throws IOException, InterruptedException {
        final int recordSize = recordSize(o.bodySize());
        final long volume = o.messages() * recordSize;
        final String machine = machine(root);
        OUT.println("AppendBenchmark: " + machine);
        OUT.printf(Locale.ROOT, "  record %,d bytes per %,d-byte body; ASYNC volume %,d bytes; data under %s%n",
                recordSize, o.bodySize(), volume, root);

        RawDiskProbe.Result rawBefore = null;
        if (o.raw()) {
            rawBefore = raw(root, volume, "before");
        }

        AsyncAppendLoad.Result async = null;
        if (o.async()) {
            OUT.printf(Locale.ROOT, "[async] %d producers x %d in flight, %,d messages (+%,d warm-up) ...%n",
                    o.threads(), o.outstanding(), o.messages(), o.warmupMessages());
            final Path dir = root.resolve("async");
            async = AsyncAppendLoad.run(o, dir);
            deleteTree(dir);
            OUT.printf(Locale.ROOT, "[async] %,.0f msg/s, %s; %,d msgs, acked in %.2f s + close %.2f s; "
                            + "%.1f log bytes/msg; %s%n", async.messagesPerSecond(), mbps(async.bytesPerSecond()),
                    async.messages(), async.sendNanos() / 1e9, async.closeNanos() / 1e9,
                    async.messages() == 0 ? 0.0 : (double) async.bytes() / async.messages(), async.resources());
            if (async.cutShort()) {
                OUT.printf(Locale.ROOT, "[async] stopped early after --async-max-seconds %d%n",
                        o.asyncMaxSeconds());
            }
            if (async.failures() > 0) {
                OUT.printf(Locale.ROOT, "[async] %,d sends FAILED; first: %s%n", async.failures(),
                        async.firstError());
            }
        }

        SyncAppendLoad.Result sync = null;
        if (o.sync()) {
            OUT.printf(Locale.ROOT, "[sync]  %d appenders x 1 in flight, %d s (+%d s warm-up) ...%n",
                    o.syncThreads(), o.syncSeconds(), o.syncWarmupSeconds());
            final Path dir = root.resolve("sync");
            sync = SyncAppendLoad.run(o, dir);
            deleteTree(dir);
            OUT.printf(Locale.ROOT, "[sync]  %,.0f msg/s, %s; latency %s; %s%n", sync.messagesPerSecond(),
                    mbps(sync.bytesPerSecond()), latency(sync.latency()), sync.resources());
            if (sync.failures() > 0) {
                OUT.printf(Locale.ROOT, "[sync]  %,d sends FAILED; first: %s%n", sync.failures(), sync.firstError());
            }
        }
        RawDiskProbe.Result rawAfter = null;
        if (o.raw() && (o.async() || o.sync())) {
            rawAfter = raw(root, volume, "after");
        }
        return summary(o, machine, recordSize, rawBefore, rawAfter, async, sync);
    }

    private static RawDiskProbe.Result raw(final Path root, final long volume, final String when)
            throws IOException {
        OUT.printf(Locale.ROOT, "[raw]   %s: writing %,d bytes in 1 MiB blocks + force ...%n", when, volume);
        final ResourceMeter meter = ResourceMeter.start();
        final RawDiskProbe.Result raw = RawDiskProbe.run(root, volume);
        OUT.printf(Locale.ROOT, "[raw]   %s: %s; write %.2f s + force %.2f s; %s%n", when,
                mbps(raw.bytesPerSecond()), raw.writeNanos() / 1e9, raw.forceNanos() / 1e9, meter.since());
        return raw;
    }

    private static int summary(final AppendOptions o, final String machine, final int recordSize,
                               final RawDiskProbe.Result rawBefore, final RawDiskProbe.Result rawAfter,
                               final AsyncAppendLoad.Result async, final SyncAppendLoad.Result sync) {
        OUT.println();
        OUT.println("==================== AppendBenchmark summary ====================");
        OUT.println("machine      : " + machine);
        OUT.printf(Locale.ROOT, "message      : %,d-byte body, %,d-byte record, topic '%s' with %d queues, "
                + "segments of %d MiB%n", o.bodySize(), recordSize, TOPIC, QUEUES, o.segmentBytes() >> 20);
        // The reference is the faster probe: on a VM the first touch of page-cache memory and other tenants' I/O
        // slow a probe down, and a slow reference would flatter the store.
        RawDiskProbe.Result raw = rawBefore;
        if (rawAfter != null && (raw == null || rawAfter.bytesPerSecond() > raw.bytesPerSecond())) {
            raw = rawAfter;
        }
        if (rawBefore != null) {
            OUT.printf(Locale.ROOT, "raw disk     : %s before, %s after the store phases; reference = the faster "
                    + "(%,d bytes: write %.2f s + force %.2f s)%n", mbps(rawBefore.bytesPerSecond()),
                    rawAfter == null ? "n/a" : mbps(rawAfter.bytesPerSecond()), raw.bytes(),
                    raw.writeNanos() / 1e9, raw.forceNanos() / 1e9);
        }
        Double asyncShare = null;
        if (async != null) {
            asyncShare = raw == null ? null : async.bytesPerSecond() / raw.bytesPerSecond();
            OUT.printf(Locale.ROOT, "ASYNC (%2d)   : %,.0f msg/s  %s  = %s of raw  (%,d msgs in %.2f s incl. close)%n",
                    o.threads(), async.messagesPerSecond(), mbps(async.bytesPerSecond()), percent(asyncShare),
                    async.messages(), async.totalNanos() / 1e9);
            OUT.println("               " + async.resources());
        }
        if (sync != null) {
            OUT.printf(Locale.ROOT, "SYNC  (%2d)   : %,.0f msg/s  %s  = %s of raw  latency %s%n", o.syncThreads(),
                    sync.messagesPerSecond(), mbps(sync.bytesPerSecond()),
                    percent(raw == null ? null : sync.bytesPerSecond() / raw.bytesPerSecond()),
                    latency(sync.latency()));
            OUT.println("               " + sync.resources());
        }
        OUT.println("bars:");
        boolean failed = false;
        if (async != null) {
            final boolean pass = async.failures() == 0 && async.messagesPerSecond() >= ASYNC_MIN_RATE
                    && asyncShare != null && asyncShare >= ASYNC_MIN_RAW_SHARE;
            failed |= !pass;
            OUT.printf(Locale.ROOT,
                    "  [%s] ASYNC >= 300,000 msg/s and >= 60 %% of raw   (%,.0f msg/s, %s of raw%s)%n",
                    pass ? "PASS" : "FAIL", async.messagesPerSecond(), percent(asyncShare),
                    async.failures() > 0 ? ", " + async.failures() + " failed sends" : "");
        } else {
            OUT.println("  [SKIP] ASYNC >= 300,000 msg/s and >= 60 % of raw   (phase not run)");
        }
        if (sync != null && o.syncThreads() == SYNC_BAR_THREADS) {
            final boolean pass = sync.failures() == 0 && sync.messagesPerSecond() >= SYNC_MIN_RATE;
            failed |= !pass;
            OUT.printf(Locale.ROOT, "  [%s] SYNC(64) >= 50,000 msg/s                    (%,.0f msg/s%s)%n",
                    pass ? "PASS" : "FAIL", sync.messagesPerSecond(),
                    sync.failures() > 0 ? ", " + sync.failures() + " failed sends" : "");
        } else {
            OUT.printf(Locale.ROOT, "  [SKIP] SYNC(64) >= 50,000 msg/s                    (%s)%n",
                    sync == null ? "phase not run" : "run with " + o.syncThreads() + " appenders, not 64");
        }
        OUT.println("result       : " + (failed ? "FAIL" : "PASS") + "   (MB = 10^6 bytes)");
        return failed ? 2 : 0;
    }

    // ------------------------------------------------------------------------------------------- shared helpers

    /** Opens a store for one phase with the disk guards off and creates the benchmark topic. */
    static MessageStore openStore(final AppendOptions o, final Path dir, final FlushMode mode) {
        final StoreConfig.Builder builder = StoreConfig.builder(dir)
                .flushMode(mode)
                .segmentSize(o.segmentBytes())
                .maxMessageSize(Math.min(4 << 20, o.segmentBytes() / 2))
                .diskFullRatio(1.01)
                .maxDiskUsedRatio(1.01);
        if (o.flushThresholdKb() > 0) {
            builder.flushThresholdBytes(o.flushThresholdKb() * 1024);
        }
        if (o.flushIntervalMs() > 0) {
            builder.flushInterval(Duration.ofMillis(o.flushIntervalMs()));
        }
        final MessageStore store = MessageStore.open(builder.build());
        try {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, QUEUES)).join();
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /** A body of incompressible bytes. */
    static byte[] body(final int size) {
        final byte[] body = new byte[size];
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < size; i++) {
            body[i] = (byte) random.nextInt(256);
        }
        return body;
    }

    /** Size of the record the store writes for one benchmark message (it adds a 32-char unique id). */
    static int recordSize(final int bodySize) {
        final Message message = Message.builder(TOPIC).queueId(0).body(new byte[bodySize])
                .uniqueId(MessageIds.newUniqueId()).build();
        return RecordCodec.encode(message, StoreConfig.builder(Path.of(".")).build().storeHost()).remaining();
    }

    private static String machine(final Path dir) throws IOException {
        final double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return String.format(Locale.ROOT, "%d cores, %s %s %s, %s %s, %s file system, load average %.2f at start",
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), Files.getFileStore(dir).type(), load);
    }

    private static String mbps(final double bytesPerSecond) {
        return String.format(Locale.ROOT, "%,.1f MB/s", bytesPerSecond / 1e6);
    }

    private static String percent(final Double share) {
        return share == null ? "n/a" : String.format(Locale.ROOT, "%.1f %%", share * 100);
    }

    private static String latency(final LatencyRecorder.Percentiles p) {
        return String.format(Locale.ROOT, "p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms", p.p50() / 1e6,
                p.p99() / 1e6, p.p999() / 1e6, p.max() / 1e6);
    }

    /** Keeps the store's INFO lines (open, recover, close) out of the report. */
    private static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    static void deleteTree(final Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
