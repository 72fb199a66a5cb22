package io.junction.bench.measure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

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
        long ticks = 0;
        for (long pid : pids) {
            try {
                final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // Fields after the command name (which may hold spaces) start after the last ')'.
                final String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }
        return ticks * NANOS_PER_TICK;
    }

    /** This JVM's own CPU time in nanoseconds. */
    public static long self() {
        final OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }
}
