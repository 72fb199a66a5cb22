package io.junction.core.pop;

import io.junction.core.PullResult;
import io.junction.core.StoreException;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings back messages whose invisible time passed un-acked. A normal group's message is copied to the retry topic
 * (then acked in the ledger); a tracked (FIFO or in-place) message is released in its place. Either goes to the
 * dead-letter topic once the group's maximum number of deliveries is reached.
 */
final class Reviver {
    /** Pause before a failed revive of a checkpoint is tried again. */
    static final long RETRY_MILLIS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(Reviver.class);

    private final PopStore store;
    private final LongSupplier clock;
    private final CheckpointLedger ledger;
    private final PopQueues queues;
    private final Redelivery redelivery;

    Reviver(final PopStore store, final LongSupplier clock, final CheckpointLedger ledger, final PopQueues queues,
            final Redelivery redelivery) {
        this.store = store;
        this.clock = clock;
        this.ledger = ledger;
        this.queues = queues;
        this.redelivery = redelivery;
    }

    /**
     * Brings back every message whose deadline passed un-acked.
     *
     * @return how many messages were revived
     */
    int revive() {
        final long now = clock.getAsLong();
        int revived = 0;
        for (OpenCheckpoint ck : ledger.takeDue(now)) {
            if (!ledger.isOpen(ck)) {
                continue;
            }
            if (ck.retryAt > now) {
                ledger.keepForLater(ck);
                continue;
            }
            for (int i = 0; i < ck.offsets.length; i++) {
                if (!ck.isOpen(i)) {
                    continue;
                }
                try {
                    reviveOne(ck, i).join();
                    revived++;
                } catch (RuntimeException e) {
                    // Retried after a pause, not on the next tick: a refusal (a retry or dead-letter topic made
                    // read-only, a full disk) lasts until an operator acts, and the message waits for it.
                    ck.retryAt = now + RETRY_MILLIS;
                    final Throwable cause = e instanceof CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    if (cause instanceof StoreException refused) {
                        LOG.warn("Reviving {}/{}@{} for group {} was refused ({}); retrying in {} ms", ck.topic,
                                ck.queueId, ck.offsets[i], ck.group, refused.getMessage(), RETRY_MILLIS);
                    } else {
                        LOG.warn("Reviving {}/{}@{} for group {} failed; retrying in {} ms", ck.topic, ck.queueId,
                                ck.offsets[i], ck.group, RETRY_MILLIS, e);
                    }
                    ledger.keepForLater(ck);
                    break;
                }
            }
        }
        return revived;
    }

    private CompletableFuture<Void> reviveOne(final OpenCheckpoint ck, final int index) {
        if (ck.inPlace) {
            return reviveInPlace(ck, index);
        }
        final PullResult read = store.read(ck.topic, ck.queueId, ck.offsets[index], 1, null);
        final StoredMessage m = read.messages().isEmpty() || read.messages().get(0).queueOffset() != ck.offsets[index]
                ? null : read.messages().get(0);
        final CompletableFuture<?> put;
        if (m == null) {
            LOG.warn("Message {}/{}@{} of group {} is gone (retention); not redelivered", ck.topic, ck.queueId,
                    ck.offsets[index], ck.group);
            put = CompletableFuture.completedFuture(null);
        } else {
            put = redelivery.redeliver(ck.group, ck.topic, m);
        }
        return put.thenCompose(v -> ledger.appendAck(ck, index))
                .thenAccept(r -> {
                    if (ck.finish(index)) {
                        ledger.closeIfDone(ck);
                    }
                });
    }

    /**
     * A tracked message's delivery timed out or was given back: it stays in place (in a FIFO group, its message group
     * stays blocked behind it) and is delivered again, or goes to the dead-letter topic once the group's maximum is
     * reached.
     */
    CompletableFuture<Void> reviveInPlace(final OpenCheckpoint ck, final int index) {
        final int deliveries = ck.reconsumeTimes[index] + 1;
        final GroupConfig config = store.group(ck.group).orElse(GroupConfig.of(ck.group));
        if (deliveries <= config.maxReconsumeTimes()) {
            return ledger.appendRelease(ck, index).thenAccept(r -> {
                if (ck.finish(index)) {
                    queues.release(ck, index, true);
                    ledger.closeIfDone(ck);
                }
            });
        }
        final PullResult read = store.read(ck.topic, ck.queueId, ck.offsets[index], 1, null);
        final CompletableFuture<?> dead = read.messages().isEmpty()
                || read.messages().get(0).queueOffset() != ck.offsets[index]
                ? CompletableFuture.completedFuture(null)
                : redelivery.deadLetter(ck.group, ck.topic, read.messages().get(0), deliveries);
        return dead.thenCompose(v -> ledger.appendAck(ck, index))
                .thenAccept(r -> {
                    if (ck.finish(index)) {
                        queues.done(ck, index);
                        ledger.closeIfDone(ck);
                    }
                });
    }
}
