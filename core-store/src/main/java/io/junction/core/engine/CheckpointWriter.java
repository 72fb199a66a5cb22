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
 */
final class CheckpointWriter {
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

    void write() throws IOException {
        if (!follower) {
            pops.commitRevivePositions(q -> queues.maxOffset(PopService.REVIVE_TOPIC, q));
            transactions.commitReplayPositions();
        }
        final long indexed = dispatcher.dispatchedOffset();
        queues.flush();
        index.flush();
        final long durable = Math.min(indexed, log.flushedOffset());
        if (durable != lastCheckpoint) {
            checkpoint.write(durable, clock.getAsLong());
            lastCheckpoint = durable;
        }
    }
}
