package io.junction.bench.measure;

import java.util.Arrays;
import java.util.List;

/**
 * Latency samples of one thread (no sharing, no synchronisation); {@link #merge} combines threads after they stopped.
 * Keeps every sample (also used by the Remoting load tool): a SYNC run of seconds produces at most a few million, a few MB of longs.
 */
public final class LatencyRecorder {
    private long[] samples = new long[16 * 1024];
    private int count;

    public void record(final long nanos) {
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, count * 2);
        }
        samples[count++] = nanos;
    }

    public int count() {
        return count;
    }

    /** Percentiles of all samples of {@code recorders}; call only after their threads finished. */
    public static Percentiles merge(final List<LatencyRecorder> recorders) {
        int total = 0;
        for (LatencyRecorder r : recorders) {
            total += r.count;
        }
        final long[] all = new long[total];
        int at = 0;
        for (LatencyRecorder r : recorders) {
            System.arraycopy(r.samples, 0, all, at, r.count);
            at += r.count;
        }
        Arrays.sort(all);
        return new Percentiles(total, at(all, 0.50), at(all, 0.99), at(all, 0.999), total == 0 ? 0 : all[total - 1]);
    }

    private static long at(final long[] sorted, final double quantile) {
        if (sorted.length == 0) {
            return 0;
        }
        final int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Latency percentiles in nanoseconds. */
    public record Percentiles(long count, long p50, long p99, long p999, long max) {
    }
}
