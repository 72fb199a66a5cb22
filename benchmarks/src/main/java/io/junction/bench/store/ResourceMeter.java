package io.junction.bench.store;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Process CPU time and GC activity over a phase: on a small shared machine, whether a phase was CPU-bound (close to
 * "cores" × wall time) says more than the rate alone.
 */
final class ResourceMeter {
    private final long wallNanos;
    private final long cpuNanos;
    private final long gcCount;
    private final long gcMillis;

    private ResourceMeter() {
        wallNanos = System.nanoTime();
        cpuNanos = processCpuNanos();
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        gcCount = count;
        gcMillis = millis;
    }

    static ResourceMeter start() {
        return new ResourceMeter();
    }

    /** E.g. "process CPU 1.83 cores of 2, GC 41 collections / 312 ms". */
    String since() {
        final ResourceMeter now = new ResourceMeter();
        final double wall = now.wallNanos - wallNanos;
        final String cpu = cpuNanos < 0 ? "n/a"
                : String.format(Locale.ROOT, "%.2f", (now.cpuNanos - cpuNanos) / wall);
        return String.format(Locale.ROOT, "process CPU %s cores of %d, GC %d collections / %d ms", cpu,
                Runtime.getRuntime().availableProcessors(), now.gcCount - gcCount, now.gcMillis - gcMillis);
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
