package io.junction.bench.measure;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What a fixed-rate run records, from any thread (client event loops, sender threads, consumer callbacks): the
 * send-ack and end-to-end latency of every message whose <em>intended</em> send time falls in the measured window,
 * each measured from that intended time, so a send that started late because the client or the broker fell behind
 * is charged for the wait (coordinated omission corrected). Also how late sends started (the load tool's own lag) and
 * counts of the window's messages. Times are {@link System#nanoTime()} of this process: producer and consumer must
 * live in it, which is what makes end-to-end latency one clock's reading.
 */
public final class OpenLoopLatency {
    /** Three significant digits; the histograms resize themselves to the largest value seen. */
    private static final int DIGITS = 3;

    private final Recorder sendAck = new Recorder(DIGITS);
    private final Recorder endToEnd = new Recorder(DIGITS);
    private final Recorder startLateness = new Recorder(DIGITS);
    private final LongAdder sent = new LongAdder();
    private final LongAdder acked = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private volatile long windowFrom = Long.MAX_VALUE;
    private volatile long windowUntil = Long.MAX_VALUE;

    /** Messages intended at {@code [from, until)} (nanoTime) are measured. */
    void window(final long from, final long until) {
        windowFrom = from;
        windowUntil = until;
    }

    public boolean measured(final long intendedNanos) {
        return intendedNanos >= windowFrom && intendedNanos < windowUntil;
    }

    /** A send intended at {@code intendedNanos} starts now. */
    public void started(final long intendedNanos) {
        if (measured(intendedNanos)) {
            sent.increment();
            startLateness.recordValue(Math.max(0, System.nanoTime() - intendedNanos));
        }
    }

    /** The broker acknowledged the send intended at {@code intendedNanos}. */
    public void acked(final long intendedNanos) {
        if (measured(intendedNanos)) {
            acked.increment();
            sendAck.recordValue(Math.max(0, System.nanoTime() - intendedNanos));
        }
    }

    /** The send intended at {@code intendedNanos} failed or was refused (counted, not timed). */
    public void failed(final long intendedNanos) {
        if (measured(intendedNanos)) {
            failed.increment();
        }
    }

    /** A consumer received the message intended at {@code intendedNanos} (once per consumer that gets it). */
    public void delivered(final long intendedNanos) {
        if (measured(intendedNanos)) {
            delivered.increment();
            endToEnd.recordValue(Math.max(0, System.nanoTime() - intendedNanos));
        }
    }

    public long sent() {
        return sent.sum();
    }

    public long acked() {
        return acked.sum();
    }

    public long failed() {
        return failed.sum();
    }

    public long delivered() {
        return delivered.sum();
    }

    /** Snapshot of everything recorded so far; call once, after the run drained. */
    Snapshot snapshot() {
        return new Snapshot(sendAck.getIntervalHistogram(), endToEnd.getIntervalHistogram(),
                startLateness.getIntervalHistogram(), sent(), acked(), failed(), delivered());
    }

    record Snapshot(Histogram sendAck, Histogram endToEnd, Histogram startLateness, long sent, long acked,
                    long failed, long delivered) {
    }
}
