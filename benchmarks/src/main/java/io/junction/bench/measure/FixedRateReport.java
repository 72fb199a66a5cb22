package io.junction.bench.measure;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * One fixed-rate run's figures as one line of {@code key=value} pairs (scripts pick them with awk): the offered rate,
 * counts of the measured window, send-ack and end-to-end latency p50/p99/p99.9/max in ms, how late sends started (the
 * load tool's own lag, already inside the latencies), and CPU per message of the brokers and of this load process.
 * {@code broker_idle_cores} is what the brokers spent with no load, and {@code broker_cpu_us_per_msg_above_idle} the
 * CPU per message once that is taken away: the messages' own cost. {@code broker_sys_us_per_msg} is the kernel's part
 * of the brokers' CPU per message (system calls, loopback networking, scheduling); {@code broker_threads_us_per_msg}
 * splits the brokers' CPU per message by thread kind (JIT compilers, event loops, pools), the costliest first.
 */
public final class FixedRateReport {
    /** The thread kinds listed in {@code broker_threads_us_per_msg}, the costliest first. */
    private static final int THREAD_KINDS_SHOWN = 8;
    private final double rate;
    private final double seconds;
    private final int fanOut;
    private final OpenLoopLatency.Snapshot s;
    private final long brokerCpuNanos;
    /** The part of {@link #brokerCpuNanos} spent in the kernel. */
    private final long brokerSystemNanos;
    /** The brokers' CPU with no load, scaled to the measured window's length. */
    private final long brokerIdleNanos;
    private final long loadCpuNanos;
    private final Map<String, Long> brokerThreadNanos;

    FixedRateReport(final double rate, final double seconds, final int fanOut, final OpenLoopLatency.Snapshot s,
                    final long brokerCpuNanos, final long brokerSystemNanos, final long brokerIdleNanos,
                    final long loadCpuNanos, final Map<String, Long> brokerThreadNanos) {
        this.rate = rate;
        this.seconds = seconds;
        this.fanOut = fanOut;
        this.s = s;
        this.brokerCpuNanos = brokerCpuNanos;
        this.brokerSystemNanos = brokerSystemNanos;
        this.brokerIdleNanos = brokerIdleNanos;
        this.loadCpuNanos = loadCpuNanos;
        this.brokerThreadNanos = brokerThreadNanos;
    }

    /** Deliveries the window's acknowledged sends should have made that did not arrive. */
    public long missing() {
        return Math.max(0, s.acked() * fanOut - s.delivered());
    }

    public long failed() {
        return s.failed();
    }

    public String line(final String label) {
        final StringBuilder b = new StringBuilder(label.isEmpty() ? "" : label + " ");
        b.append(String.format(Locale.ROOT, "rate_per_s=%.0f measured_s=%.0f fan_out=%d sent=%d acked=%d failed=%d "
                        + "delivered=%d missing=%d achieved_per_s=%.0f", rate, seconds, fanOut, s.sent(), s.acked(),
                s.failed(), s.delivered(), missing(), s.acked() / seconds));
        percentiles(b, "send", s.sendAck());
        percentiles(b, "e2e", s.endToEnd());
        b.append(String.format(Locale.ROOT, " start_late_p99_ms=%.3f", ms(s.startLateness().getValueAtPercentile(99))));
        final long messages = Math.max(1, s.sent());
        b.append(String.format(Locale.ROOT, " broker_cpu_us_per_msg=%.2f broker_cpu_us_per_delivery=%.2f "
                        + "broker_cores=%.2f broker_idle_cores=%.2f broker_cpu_us_per_msg_above_idle=%.2f "
                        + "load_cpu_us_per_msg=%.2f", brokerCpuNanos / 1e3 / messages,
                brokerCpuNanos / 1e3 / Math.max(1, s.delivered()), brokerCpuNanos / 1e9 / seconds,
                brokerIdleNanos / 1e9 / seconds, Math.max(0, brokerCpuNanos - brokerIdleNanos) / 1e3 / messages,
                loadCpuNanos / 1e3 / messages));
        b.append(String.format(Locale.ROOT, " broker_sys_us_per_msg=%.2f", brokerSystemNanos / 1e3 / messages));
        b.append(" broker_threads_us_per_msg=").append(brokerThreadNanos.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(THREAD_KINDS_SHOWN)
                .map(e -> String.format(Locale.ROOT, "%s:%.1f", e.getKey(), e.getValue() / 1e3 / messages))
                .collect(Collectors.joining(",")));
        return b.toString();
    }

    private static void percentiles(final StringBuilder b, final String name, final Histogram h) {
        b.append(String.format(Locale.ROOT, " %s_p50_ms=%.3f %s_p99_ms=%.3f %s_p999_ms=%.3f %s_max_ms=%.3f",
                name, ms(h.getValueAtPercentile(50)), name, ms(h.getValueAtPercentile(99)),
                name, ms(h.getValueAtPercentile(99.9)), name, ms(h.getMaxValue())));
    }

    private static double ms(final long nanos) {
        return nanos / 1e6;
    }
}
