package io.junction.bench.store;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * {@link PullRunBenchmark}'s pulls, measured as process CPU per pulled record instead of pulls per second: on a
 * machine whose cores are shared with other work, the wall-clock rate follows the CPU the process happens to get, while
 * the CPU each record costs (all threads: caller, reader pool, GC) stays comparable between two builds run one after
 * the other.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.junction.bench.store.PullRunCpu BATCH QUEUES RESTARTED SECONDS
 * java -cp benchmarks/target/benchmarks.jar io.junction.bench.store.PullRunCpu 1000 1 false 10
 * </pre>
 */
public final class PullRunCpu {
    private PullRunCpu() {
    }

    public static void main(final String[] args) throws Exception {
        final PullRunBenchmark bench = new PullRunBenchmark();
        bench.batch = Integer.parseInt(args[0]);
        bench.queues = Integer.parseInt(args[1]);
        bench.restarted = Boolean.parseBoolean(args[2]);
        final long seconds = Long.parseLong(args[3]);
        final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        bench.setUp();
        try {
            run(bench, seconds / 2); // warm-up
            final long cpu0 = os.getProcessCpuTime();
            final long t0 = System.nanoTime();
            final long ops = run(bench, seconds);
            final long cpu = os.getProcessCpuTime() - cpu0;
            final long wall = System.nanoTime() - t0;
            System.out.printf("batch=%d queues=%d restarted=%s pulls=%d pulls/s=%.0f cpu_ns_per_record=%.1f "
                            + "cores=%.2f load=%.1f%n", bench.batch, bench.queues, bench.restarted, ops,
                    ops * 1e9 / wall, (double) cpu / (ops * bench.batch), (double) cpu / wall,
                    os.getSystemLoadAverage());
        } finally {
            bench.tearDown();
        }
    }

    private static long run(final PullRunBenchmark bench, final long seconds) {
        final long end = System.nanoTime() + seconds * 1_000_000_000L;
        long ops = 0;
        while (System.nanoTime() < end) {
            bench.pull();
            ops++;
        }
        return ops;
    }
}
