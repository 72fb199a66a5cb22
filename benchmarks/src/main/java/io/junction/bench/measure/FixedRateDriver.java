package io.junction.bench.measure;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Open-loop load, the OpenMessaging Benchmark's method: sends start on a fixed schedule ({@code rate} per second,
 * slot n intended at start + n / rate), whether or not earlier ones were answered, so a slow broker meets the same
 * offered load as a fast one instead of being asked less. {@code threads} sender threads claim the slots in order;
 * a thread that is still busy with an earlier (synchronous) send starts its next slot late, and {@link OpenLoopLatency}
 * charges that wait to the message, because every latency is measured from the slot's intended time.
 *
 * <p>The run is {@code warmup} seconds at the rate (not measured), then {@code duration} seconds measured; the
 * brokers' CPU time ({@link ProcessCpu}) and this process's are read at the two ends of the measured window, so CPU
 * per message is that window's CPU over its messages. Before any send, the brokers' CPU is read over
 * {@link #IDLE_SECONDS} of no load (clients connected): a JVM broker's timers, compiler and collector cost CPU at any
 * rate, and at a low rate that share of "CPU per message" is larger than the messages' own.
 */
public final class FixedRateDriver {
    /** Starts one send; may block (a synchronous client) or hand the send to the client's own thread. */
    @FunctionalInterface
    public interface Sender {
        void send(long slot, long intendedNanos) throws Exception;
    }

    private final double rate;
    private final long warmupNanos;
    private final long durationNanos;
    private final int threads;
    private final ProcessCpu brokers;
    /** Seconds of no load over which the brokers' idle CPU is read before the run. */
    static final int IDLE_SECONDS = 3;

    private final OpenLoopLatency latency = new OpenLoopLatency();
    private long brokerIdleNanos;
    private long brokerCpuNanos;
    private long brokerSystemNanos;
    private long loadCpuNanos;
    /** The brokers' CPU in the measured window by thread kind ({@link ProcessCpu#nanosByThreadKind}). */
    private final Map<String, Long> brokerThreadNanos = new HashMap<>();

    public FixedRateDriver(final double rate, final int warmupSeconds, final int durationSeconds, final int threads,
                           final long[] brokerPids) {
        if (rate <= 0 || durationSeconds <= 0 || threads <= 0) {
            throw new IllegalArgumentException("rate, duration and threads must be positive");
        }
        this.rate = rate;
        this.warmupNanos = TimeUnit.SECONDS.toNanos(warmupSeconds);
        this.durationNanos = TimeUnit.SECONDS.toNanos(durationSeconds);
        this.threads = threads;
        this.brokers = new ProcessCpu(brokerPids);
    }

    public OpenLoopLatency latency() {
        return latency;
    }

    /** Runs warm-up and measured window; returns once every slot of both was started (answers may still be due). */
    public void run(final Sender sender) throws InterruptedException {
        final long idle0 = brokers.nanos();
        final long idleStart = System.nanoTime();
        parkUntil(idleStart + TimeUnit.SECONDS.toNanos(IDLE_SECONDS));
        final double toWindow = (double) durationNanos / (System.nanoTime() - idleStart);
        brokerIdleNanos = (long) ((brokers.nanos() - idle0) * toWindow);
        final long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        final long measureFrom = start + warmupNanos;
        final long end = measureFrom + durationNanos;
        latency.window(measureFrom, end);
        final double periodNanos = 1e9 / rate;
        final AtomicLong nextSlot = new AtomicLong();
        final List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final Thread worker = new Thread(() -> {
                while (true) {
                    final long slot = nextSlot.getAndIncrement();
                    final long intended = start + (long) (slot * periodNanos);
                    if (intended >= end) {
                        return;
                    }
                    parkUntil(intended);
                    latency.started(intended);
                    try {
                        sender.send(slot, intended);
                    } catch (Exception e) {
                        latency.failed(intended);
                    }
                }
            }, "fixed-rate-sender-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        parkUntil(measureFrom);
        final long brokerCpu0 = brokers.nanos();
        final long brokerSystem0 = brokers.systemNanos();
        final Map<String, Long> threads0 = brokers.nanosByThreadKind();
        final long loadCpu0 = ProcessCpu.self();
        parkUntil(end);
        brokerCpuNanos = brokers.nanos() - brokerCpu0;
        brokerSystemNanos = brokers.systemNanos() - brokerSystem0;
        final Map<String, Long> threads1 = brokers.nanosByThreadKind();
        brokerThreadNanos.clear();
        threads1.forEach((kind, nanos) -> brokerThreadNanos.put(kind, nanos - threads0.getOrDefault(kind, 0L)));
        loadCpuNanos = ProcessCpu.self() - loadCpu0;
        for (Thread worker : workers) {
            worker.join();
        }
    }

    /** Polls {@code drained} every 20 ms until it holds or {@code maxSeconds} passed; says whether it held. */
    public static boolean await(final BooleanSupplier drained, final int maxSeconds) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
        while (!drained.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return true;
    }

    /** The report of the measured window; {@code fanOut} = consumers that each get every message. */
    public FixedRateReport report(final int fanOut) {
        return new FixedRateReport(rate, durationNanos / 1e9, fanOut, latency.snapshot(), brokerCpuNanos,
                brokerSystemNanos, brokerIdleNanos, loadCpuNanos, Map.copyOf(brokerThreadNanos));
    }

    /**
     * Parks (never spins: the load shares two cores with the brokers) until {@code deadline}. Linux wakes a parked
     * thread some tens of microseconds late; sends due meanwhile then start back to back, timed from their slots.
     */
    private static void parkUntil(final long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }
}
