package io.junction.conformance.crash;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One producer of the cluster chaos test on its own thread, homed on one node: sends one message after another (each
 * waits for its acknowledgement) until stopped. Unlike {@link ProducerLoop} it outlives kills: when its client fails
 * (its node was killed or stopped, or answered with an error) it closes the client and connects again, so the load
 * continues on whichever nodes are up. A failed send is attempted only in the ledger (it may or may not be stored).
 *
 * <p>It also tells the test when it got its first acknowledgement after a {@link #mark(long) mark} (the moment of a
 * kill): that is how the test measures how long the cluster took to take writes again.
 */
final class ChaosProducer implements Runnable {
    /** Connects the producer's client to its node. */
    @FunctionalInterface
    interface Connector {
        Sender connect() throws Exception;
    }

    /** Back-off between a failure and the next connection attempt (the node may be down for seconds). */
    private static final long RECONNECT_PAUSE_MILLIS = 100;

    private final String stream;
    private final int node;
    private final Connector connector;
    private final Ledger ledger;
    private final Random random;
    private final AtomicBoolean stop;
    private volatile long markNanos;
    private final AtomicLong firstAckNanos = new AtomicLong();
    private volatile int acknowledged;
    private volatile int failed;

    ChaosProducer(final String stream, final int node, final Connector connector, final Ledger ledger,
                  final Random random, final AtomicBoolean stop) {
        this.stream = stream;
        this.node = node;
        this.connector = connector;
        this.ledger = ledger;
        this.random = random;
        this.stop = stop;
    }

    @Override
    public void run() {
        Sender sender = null;
        try {
            while (!stop.get()) {
                if (sender == null) {
                    try {
                        sender = connector.connect();
                    } catch (final Exception e) {
                        pause(); // the node is down or not serving yet
                        continue;
                    }
                }
                final Ledger.Outgoing message = ledger.attempt(stream, node, random);
                final long began = System.nanoTime();
                try {
                    if (sender.send(message)) {
                        ledger.acknowledged(message);
                        acknowledged++;
                        recordAck(began, System.nanoTime());
                        continue;
                    }
                } catch (final Exception e) {
                    // the client is broken (node killed or stopped) or the send failed: connect again below
                }
                failed++;
                sender.close();
                sender = null;
                pause();
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (sender != null) {
                sender.close();
            }
        }
    }

    /** From now on the first acknowledgement after {@code nanos} is recorded. */
    void mark(final long nanos) {
        markNanos = nanos;
    }

    /**
     * The {@link System#nanoTime()} of the first acknowledgement of a send begun after the mark, or 0 while there is
     * none.
     */
    long firstAckAfterMark() {
        final long mark = markNanos;
        final long first = firstAckNanos.get();
        return mark != 0 && first - mark > 0 ? first : 0;
    }

    /**
     * Keeps the first acknowledgement of a send begun after the current mark (an answer to a send begun before a kill
     * may still arrive just after it, and says nothing about the survivors).
     */
    private void recordAck(final long began, final long now) {
        final long mark = markNanos;
        final long first = firstAckNanos.get();
        if (mark != 0 && began - mark > 0 && (first == 0 || first - mark <= 0)) {
            firstAckNanos.compareAndSet(first, now);
        }
    }

    String stream() {
        return stream;
    }

    /** The node this producer's client connects to (1-based). */
    int node() {
        return node;
    }

    int acknowledged() {
        return acknowledged;
    }

    /** Sends that failed or were refused (never counted as acknowledged). */
    int failed() {
        return failed;
    }

    private static void pause() throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(RECONNECT_PAUSE_MILLIS);
    }
}
