package io.junction.conformance.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When a group of {@link ChaosProducer}s got acknowledgements: a sampler thread reads their acknowledged counts every
 * few milliseconds and records each moment the total grew, so that a test can tell the longest time the whole group
 * took no write (a hand-over between leaders) within any window. Sampling, so a gap is known to within
 * {@link #SAMPLE_MILLIS}.
 */
final class AckTimeline implements Runnable {
    static final long SAMPLE_MILLIS = 5;

    private final List<ChaosProducer> producers;
    private final AtomicBoolean stop;
    /** {@link System#nanoTime()} of each sample where the acknowledged total had grown; guarded by itself. */
    private final List<Long> grew = new ArrayList<>();

    AckTimeline(final List<ChaosProducer> producers, final AtomicBoolean stop) {
        this.producers = producers;
        this.stop = stop;
    }

    @Override
    public void run() {
        long total = 0;
        try {
            while (!stop.get()) {
                final long now = producers.stream().mapToLong(ChaosProducer::acknowledged).sum();
                if (now > total) {
                    total = now;
                    synchronized (grew) {
                        grew.add(System.nanoTime());
                    }
                }
                TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS); // the sampling period, not a wait for an outcome
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The longest time without a new acknowledgement that ended within {@code (from, to]} (or that still lasts at
     * {@code to}), in milliseconds.
     */
    long longestGapMillis(final long fromNanos, final long toNanos) {
        final List<Long> times;
        synchronized (grew) {
            times = List.copyOf(grew);
        }
        long longest = 0;
        long previous = Long.MIN_VALUE;
        for (long t : times) {
            if (previous != Long.MIN_VALUE && t - fromNanos > 0 && t - toNanos <= 0) {
                longest = Math.max(longest, t - previous);
            }
            previous = t;
        }
        if (previous != Long.MIN_VALUE && toNanos - previous > longest) {
            longest = toNanos - previous; // nothing acknowledged since the last growth
        }
        return TimeUnit.NANOSECONDS.toMillis(longest);
    }
}
