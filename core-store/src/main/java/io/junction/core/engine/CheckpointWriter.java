package io.junction.core.engine;

import io.junction.core.index.MessageIndex;
import io.junction.core.log.CommitLog;
import io.junction.core.pop.PopService;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.queue.Dispatcher;
import io.junction.core.txn.TransactionService;
import java.io.IOException;
import java.util.function.LongSupplier;

/**
 * Writes the store's checkpoint: the log offset below which everything is both durable and indexed, so recovery
 * re-verifies only the log past it. The replay positions of POP and transactions move first, and the queues and
 * index are flushed before the offset is written, so the checkpoint never claims more than is on disk.
 *
 * <p>The message index is forced at most every {@value #INDEX_FORCE_INTERVAL_MS} ms (and at every
 * {@link #writeAll}), not at every checkpoint: forcing a mapped file makes the kernel write-protect its pages again,
 * and the index's writes land on random hash slots, so after every force each page touched faulted once more.
 * Measured (benchmarks/README.md, Kafka): with a force every second, indexing was a quarter of the broker's CPU
 * on a produce. Between index forces the checkpoint stays where the index was when it was last forced, so recovery
 * re-indexes a little more of the log after a crash, and never less than it must.
 */
final class CheckpointWriter {
    /** Longest time the periodic checkpoint leaves the message index unforced. */
    static final long INDEX_FORCE_INTERVAL_MS = 10_000;

    private final Checkpoint checkpoint;
    private final LongSupplier clock;
    private final CommitLog log;
    private final ConsumeQueueStore queues;
    private final MessageIndex index;
    private final Dispatcher dispatcher;
    private final PopService pops;
    private final TransactionService transactions;
    /**
     * A replicated store's follower: it pops nothing and resolves no transaction, so its (empty) in-flight state must
     * not move the replay positions; it keeps the positions its leader ships, which a promotion replays from.
     */
    private final boolean follower;
    private volatile long lastCheckpoint;
    /** {@link System#nanoTime} of the index's last force; none yet while {@link #indexForced} is false. */
    private long indexForcedAtNanos;
    private boolean indexForced;
    /** The dispatched offset read before the index was last forced: everything below it is in the forced index. */
    private long indexForcedBelow;

    CheckpointWriter(final Checkpoint checkpoint, final LongSupplier clock, final CommitLog log,
                     final ConsumeQueueStore queues, final MessageIndex index, final Dispatcher dispatcher,
                     final PopService pops, final TransactionService transactions, final boolean follower) {
        this.checkpoint = checkpoint;
        this.clock = clock;
        this.log = log;
        this.queues = queues;
        this.index = index;
        this.dispatcher = dispatcher;
        this.pops = pops;
        this.transactions = transactions;
        this.follower = follower;
    }

    /** A periodic checkpoint: forces the index only when it last did {@value #INDEX_FORCE_INTERVAL_MS} ms ago. */
    void write() throws IOException {
        write(false);
    }

    /** A checkpoint that forces the index too, so it covers everything dispatched (opening and closing the store). */
    void writeAll() throws IOException {
        write(true);
    }

    private synchronized void write(final boolean forceIndex) throws IOException {
        if (!follower) {
            pops.commitRevivePositions(q -> queues.maxOffset(PopService.REVIVE_TOPIC, q));
            transactions.commitReplayPositions();
        }
        final long indexed = dispatcher.dispatchedOffset();
        queues.flush();
        // Monotonic time: a wall clock set back must not hold the index unforced (and the checkpoint still).
        final long now = System.nanoTime();
        if (forceIndex || !indexForced || now - indexForcedAtNanos >= INDEX_FORCE_INTERVAL_MS * 1_000_000L) {
            index.flush();
            indexForcedBelow = indexed;
            indexForcedAtNanos = now;
            indexForced = true;
        }
        final long durable = Math.min(indexForcedBelow, log.flushedOffset());
        if (durable != lastCheckpoint) {
            checkpoint.write(durable, clock.getAsLong());
            lastCheckpoint = durable;
        }
    }
}
