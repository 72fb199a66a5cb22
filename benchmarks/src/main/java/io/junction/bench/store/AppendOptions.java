package io.junction.bench.store;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Command-line options of {@link AppendBenchmark}; every option has a default that keeps one run under two minutes on
 * a small machine.
 *
 * @param messages          ASYNC: messages to send in the measured part
 * @param warmupMessages    ASYNC: messages sent (and awaited) before measuring, to the same store
 * @param threads           ASYNC: producer threads
 * @param outstanding       ASYNC: most unacknowledged sends per producer thread
 * @param asyncMaxSeconds   ASYNC: stop sending after this long even if not all messages went out
 * @param syncThreads       SYNC: concurrent appenders, each with one send in flight
 * @param syncSeconds       SYNC: measured duration
 * @param syncWarmupSeconds SYNC: unmeasured lead-in
 * @param bodySize          body bytes per message
 * @param segmentBytes      commit-log segment size
 * @param flushThresholdKb  ASYNC flush threshold override in KiB, or -1 for the store default
 * @param flushIntervalMs   ASYNC flush interval override in ms, or -1 for the store default
 * @param dir               parent of the benchmark's temporary directories (must be on the disk under test)
 * @param raw               run the raw-disk phase
 * @param async             run the ASYNC phase
 * @param sync              run the SYNC phase
 * @param verbose           leave the store's INFO logging on
 */
record AppendOptions(
        long messages,
        long warmupMessages,
        int threads,
        int outstanding,
        int asyncMaxSeconds,
        int syncThreads,
        int syncSeconds,
        int syncWarmupSeconds,
        int bodySize,
        int segmentBytes,
        int flushThresholdKb,
        int flushIntervalMs,
        Path dir,
        boolean raw,
        boolean async,
        boolean sync,
        boolean verbose) {

    static final String USAGE = String.join("\n",
            "Usage: java -cp benchmarks.jar io.junction.bench.store.AppendBenchmark [options]",
            "  --messages N            ASYNC messages to send, measured (default 2,000,000)",
            "  --warmup-messages N     ASYNC messages sent before measuring (default 200,000)",
            "  --threads N             ASYNC producer threads (default 4)",
            "  --outstanding N         ASYNC unacknowledged sends per producer (default 1024)",
            "  --async-max-seconds S   stop the ASYNC phase early after S seconds (default 60)",
            "  --sync-threads N        SYNC concurrent appenders (default 64)",
            "  --sync-seconds S        SYNC measured duration (default 10)",
            "  --sync-warmup-seconds S SYNC unmeasured lead-in (default 1)",
            "  --body-size B           body bytes (default 1024)",
            "  --segment-mb M          commit-log segment size in MiB (default 1024)",
            "  --flush-threshold-kb K  override the store's ASYNC flush threshold (experiments)",
            "  --flush-interval-ms T   override the store's ASYNC flush interval (experiments)",
            "  --dir PATH              where temporary directories go (default java.io.tmpdir)",
            "  --phases LIST           any of raw,async,sync (default all three)",
            "  --verbose               keep the store's INFO logging",
            "Exit status: 0 all bars passed, 2 a bar failed, 1 usage or run error.");

    static AppendOptions parse(final String[] args) {
        long messages = 2_000_000;
        long warmupMessages = 200_000;
        int threads = 4;
        int outstanding = 1024;
        int asyncMaxSeconds = 60;
        int syncThreads = 64;
        int syncSeconds = 10;
        int syncWarmupSeconds = 1;
        int bodySize = 1024;
        int segmentMb = 1024;
        int flushThresholdKb = -1;
        int flushIntervalMs = -1;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        String phases = "raw,async,sync";
        boolean verbose = false;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            String value = null;
            final int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (name.equals("--help") || name.equals("-h")) {
                throw new IllegalArgumentException("");
            }
            if (name.equals("--verbose")) {
                verbose = true;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "--messages" -> messages = number(name, value, 1);
                case "--warmup-messages" -> warmupMessages = number(name, value, 0);
                case "--threads" -> threads = (int) number(name, value, 1);
                case "--outstanding" -> outstanding = (int) number(name, value, 1);
                case "--async-max-seconds" -> asyncMaxSeconds = (int) number(name, value, 1);
                case "--sync-threads" -> syncThreads = (int) number(name, value, 1);
                case "--sync-seconds" -> syncSeconds = (int) number(name, value, 1);
                case "--sync-warmup-seconds" -> syncWarmupSeconds = (int) number(name, value, 0);
                case "--body-size" -> bodySize = (int) number(name, value, 1);
                case "--segment-mb" -> segmentMb = (int) number(name, value, 1);
                case "--flush-threshold-kb" -> flushThresholdKb = (int) number(name, value, 1);
                case "--flush-interval-ms" -> flushIntervalMs = (int) number(name, value, 1);
                case "--dir" -> dir = Path.of(value);
                case "--phases" -> phases = value.toLowerCase(Locale.ROOT);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (segmentMb > 1024) {
            throw new IllegalArgumentException("--segment-mb must be at most 1024");
        }
        for (String p : phases.split(",")) {
            if (!p.isBlank() && !p.strip().matches("raw|async|sync")) {
                throw new IllegalArgumentException("unknown phase '" + p + "' (raw, async, sync)");
            }
        }
        final String ph = "," + phases.replace(" ", "") + ",";
        return new AppendOptions(messages, warmupMessages, threads, outstanding, asyncMaxSeconds, syncThreads,
                syncSeconds, syncWarmupSeconds, bodySize, segmentMb << 20, flushThresholdKb, flushIntervalMs, dir,
                ph.contains(",raw,"), ph.contains(",async,"), ph.contains(",sync,"), verbose);
    }

    private static long number(final String name, final String value, final long min) {
        final long n;
        try {
            n = Long.parseLong(value.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not a number: " + value);
        }
        if (n < min || n > Integer.MAX_VALUE && !name.equals("--messages") && !name.equals("--warmup-messages")) {
            throw new IllegalArgumentException(name + ": " + value + " out of range");
        }
        return n;
    }
}
