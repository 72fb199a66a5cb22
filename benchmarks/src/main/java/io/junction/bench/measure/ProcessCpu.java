package io.junction.bench.measure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time of other processes on this machine (the brokers under test), from {@code /proc/<pid>/stat}: user plus
 * system time, in clock ticks of 1/100 s (Linux's fixed USER_HZ). Lets the load tool charge each phase's broker CPU
 * to the messages of that phase, a figure that holds up on a machine shared with other work better than rates do.
 */
public final class ProcessCpu {
    private static final long NANOS_PER_TICK = 10_000_000L;

    private final long[] pids;

    public ProcessCpu(final long[] pids) {
        this.pids = pids.clone();
    }

    /** Summed CPU time of the processes so far, in nanoseconds; 0 when there are none or /proc is absent. */
    public long nanos() {
        return ticks(true) * NANOS_PER_TICK;
    }

    /**
     * The part of {@link #nanos} spent in the kernel on the processes' behalf (system calls, the network stack of
     * loopback sockets, page faults, scheduling), in nanoseconds.
     */
    public long systemNanos() {
        return ticks(false) * NANOS_PER_TICK;
    }

    private long ticks(final boolean withUser) {
        long ticks = 0;
        for (long pid : pids) {
            try {
                ticks += ticksOf(Files.readString(Path.of("/proc", Long.toString(pid), "stat")), withUser);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }
        return ticks;
    }

    /**
     * CPU time so far of the processes' threads, summed by kind: the thread name as the kernel keeps it (its first 15
     * characters) with every run of digits made {@code #}, so the JIT's compiler threads, a pool's workers or a
     * Netty group's event loops add up to one entry each. Threads that ended are missing; a phase's figure is the
     * difference of two reads.
     */
    public Map<String, Long> nanosByThreadKind() {
        final Map<String, Long> kinds = new HashMap<>();
        for (long pid : pids) {
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                tasks.forEach(task -> {
                    try {
                        final String stat = Files.readString(task.resolve("stat"));
                        final String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        kinds.merge(name.replaceAll("[0-9]+", "#").replace(' ', '_'),
                                ticksOf(stat, true) * NANOS_PER_TICK, Long::sum);
                    } catch (IOException | RuntimeException e) {
                        // the thread ended between the listing and the read
                    }
                });
            } catch (IOException | RuntimeException e) {
                return Map.of();
            }
        }
        return kinds;
    }

    /** System time, plus user time if asked, of one {@code stat} line of a process or a thread, in clock ticks. */
    private static long ticksOf(final String stat, final boolean withUser) {
        // Fields after the command name (which may hold spaces) start after the last ')'.
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return (withUser ? Long.parseLong(f[11]) : 0) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }

    /** This JVM's own CPU time in nanoseconds. */
    public static long self() {
        final OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }
}
