package io.junction.conformance.crash;

import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One producer of a round on its own thread: sends one message after another (each waits for its acknowledgement)
 * until the round stops it or its client fails, which happens when the broker is killed under it. A failed send is
 * not acknowledged: the ledger keeps it as attempted only (it may or may not have been stored).
 */
final class ProducerLoop implements Runnable {
    private final String stream;
    private final int round;
    private final Sender sender;
    private final Ledger ledger;
    private final Random random;
    private final AtomicBoolean stop;
    private volatile int acknowledged;
    private volatile int refused;
    private volatile Exception failure;
    private volatile long failedAtNanos;

    ProducerLoop(final String stream, final int round, final Sender sender, final Ledger ledger, final Random random,
                 final AtomicBoolean stop) {
        this.stream = stream;
        this.round = round;
        this.sender = sender;
        this.ledger = ledger;
        this.random = random;
        this.stop = stop;
    }

    @Override
    public void run() {
        while (!stop.get()) {
            final Ledger.Outgoing message = ledger.attempt(stream, round, random);
            try {
                if (sender.send(message)) {
                    ledger.acknowledged(message);
                    acknowledged++;
                } else {
                    refused++;
                }
            } catch (final Exception e) {
                failure = e;
                failedAtNanos = System.nanoTime();
                return; // the client is broken (the broker died): the round closes it
            }
        }
    }

    String stream() {
        return stream;
    }

    int acknowledged() {
        return acknowledged;
    }

    /** Sends answered without success (not counted as acknowledged). */
    int refused() {
        return refused;
    }

    /** The failure that ended the loop if it came before {@code killedAtNanos}, else null. */
    Exception failedBefore(final long killedAtNanos) {
        return failure != null && failedAtNanos - killedAtNanos < 0 ? failure : null;
    }
}
