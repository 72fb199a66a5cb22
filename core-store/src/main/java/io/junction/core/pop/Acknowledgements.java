package io.junction.core.pop;

import io.junction.core.PullResult;
import io.junction.core.Receipt;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * What a consumer does with a popped message through its receipt handle: ack it, change when it becomes visible
 * again (a nack is a change to the group's back-off), or move it to the dead-letter topic. Each outcome is recorded
 * in the {@link CheckpointLedger} before the caller hears of it.
 */
final class Acknowledgements {
    private final PopStore store;
    private final LongSupplier clock;
    private final ReceiptHandle.Codec handles;
    private final CheckpointLedger ledger;
    private final PopQueues queues;
    private final Reviver reviver;
    private final Redelivery redelivery;

    Acknowledgements(final PopStore store, final LongSupplier clock, final ReceiptHandle.Codec handles,
                     final CheckpointLedger ledger, final PopQueues queues, final Reviver reviver,
                     final Redelivery redelivery) {
        this.store = store;
        this.clock = clock;
        this.handles = handles;
        this.ledger = ledger;
        this.queues = queues;
        this.reviver = reviver;
        this.redelivery = redelivery;
    }

    /** Acks several popped messages of a group given as sealed receipt handles. */
    CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return ackChecked(receiptHandles, text -> validHandle(group, text));
    }

    /** Acks receipts as pops made them: those of this service are taken as they are, without opening sealed text. */
    CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return ackChecked(receipts, r -> r instanceof PopReceipt p && p.madeWith(handles) ? ofGroup(group, p.handle)
                : validHandle(group, r.sealed()));
    }

    /** Checks each receipt with {@code check} (which throws for an invalid one), then acks the valid ones. */
    private <T> CompletableFuture<Void> ackChecked(final List<? extends T> receipts,
                                                   final Function<T, ReceiptHandle> check) {
        final List<ReceiptHandle> valid = new ArrayList<>(receipts.size());
        StoreException firstError = null;
        for (final T r : receipts) {
            try {
                valid.add(check.apply(r));
            } catch (StoreException e) {
                firstError = firstError == null ? e : firstError;
            }
        }
        return ackHandles(valid, firstError);
    }

    /** Acks the messages of checked handles, then fails with {@code error} when the caller had an invalid one. */
    private CompletableFuture<Void> ackHandles(final List<ReceiptHandle> valid, final StoreException error) {
        StoreException firstError = error;
        final Map<Integer, List<AckTarget>> byReviveQueue = new HashMap<>(4);
        for (final ReceiptHandle h : valid) {
            try {
                final OpenCheckpoint ck = ledger.openCheckpoint(h);
                byReviveQueue.computeIfAbsent(ck.reviveQueue, q -> new ArrayList<>()).add(new AckTarget(ck, h.index()));
            } catch (StoreException e) {
                firstError = firstError == null ? e : firstError;
            }
        }
        final List<CompletableFuture<?>> appended = new ArrayList<>();
        byReviveQueue.forEach((queue, targets) -> {
            for (int from = 0; from < targets.size(); from += CheckpointRecord.MAX_ACKS) {
                final List<AckTarget> chunk = targets.subList(from,
                        Math.min(targets.size(), from + CheckpointRecord.MAX_ACKS));
                final long[] ids = new long[chunk.size()];
                final int[] indexes = new int[chunk.size()];
                for (int i = 0; i < chunk.size(); i++) {
                    ids[i] = chunk.get(i).ck.id;
                    indexes[i] = chunk.get(i).index;
                }
                appended.add(ledger.appendAcks(queue, ids, indexes)
                        .thenAccept(r -> chunk.forEach(t -> acked(t.ck, t.index))));
            }
        });
        final StoreException failure = firstError;
        if (appended.isEmpty()) {
            return failure == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(failure);
        }
        final CompletableFuture<Void> all = CompletableFuture.allOf(appended.toArray(new CompletableFuture<?>[0]));
        return failure == null ? all : all.thenCompose(v -> CompletableFuture.failedFuture(failure));
    }

    private record AckTarget(OpenCheckpoint ck, int index) {
    }

    /** After an ack record is durable: the message will not come back. */
    private void acked(final OpenCheckpoint ck, final int index) {
        if (ck.finish(index)) {
            if (ck.inPlace) {
                queues.done(ck, index);
            }
            ledger.closeIfDone(ck);
        }
    }

    /**
     * Makes a popped message visible again after {@code invisibleMillis} from now instead of at its current deadline
     * (0 = at once, as a negative acknowledgement); returns the new receipt handle, the old one no longer works.
     */
    CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                  final long invisibleMillis) {
        final Held held;
        try {
            if (invisibleMillis < 0) {
                throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "invisible time must not be negative");
            }
            held = held(group, receiptHandle);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final ReceiptHandle h = held.handle();
        final OpenCheckpoint ck = held.ck();
        if (invisibleMillis == 0 && ck.inPlace && store.group(group).map(GroupConfig::inPlace).orElse(false)
                && !store.group(group).map(GroupConfig::fifo).orElse(false)) {
            // Given back now: available again in its place at once (the handle is done with), as the revive of an
            // expired delivery would make it. (FIFO groups keep the short-lived checkpoint their clients expect.)
            return reviver.reviveInPlace(ck, h.index()).thenApply(v -> receiptHandle);
        }
        final long id = ledger.nextId();
        final long deadline = clock.getAsLong() + invisibleMillis;
        // The new single-message checkpoint first: if the ack of the old one is lost, the message comes back twice,
        // never zero times.
        return ledger.store(ck.inPlace, id, deadline, group, h.topic(), h.queueId(), new long[] {h.queueOffset()},
                new int[] {h.reconsumeTimes()})
                .thenCompose(newCk -> ledger.appendAck(ck, h.index())
                        .thenApply(r -> {
                            if (ck.finish(h.index())) {
                                ledger.closeIfDone(ck);
                            }
                            return handles.encode(new ReceiptHandle(id, 0, group, h.topic(), h.queueId(),
                                    h.queueOffset(), h.reconsumeTimes(), deadline));
                        }));
    }

    /**
     * Moves a popped message to the group's dead-letter topic now (the consumer gave up on it) and acknowledges it.
     */
    CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        final Held held;
        try {
            held = held(group, receiptHandle);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final ReceiptHandle h = held.handle();
        final Optional<StoredMessage> stored = stillStored(h);
        if (stored.isEmpty()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                    "the message of this receipt handle is no longer stored"));
        }
        final StoredMessage m = stored.get();
        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, h.topic());
        return ackAfter(redelivery.deadLetter(group, origin, m, h.reconsumeTimes() + 1), held);
    }

    /**
     * Returns a popped message unconsumed: available to the group again at once with its delivery count unchanged. A
     * tracked (FIFO or in-place) message is released in its place; a normal group's is copied to the retry topic now
     * (not at the next revive) with the count it had. The handle no longer works afterwards.
     */
    CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        final Held held;
        try {
            held = held(group, receiptHandle);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final OpenCheckpoint ck = held.ck();
        final int index = held.handle().index();
        if (ck.inPlace) {
            return ledger.appendGiveBack(ck, index).thenAccept(r -> {
                if (ck.finish(index)) {
                    queues.release(ck, index, false);
                    ledger.closeIfDone(ck);
                }
            });
        }
        final ReceiptHandle h = held.handle();
        final CompletableFuture<?> copied = stillStored(h)
                .<CompletableFuture<?>>map(m -> redelivery.giveBack(group, h.topic(), m))
                .orElseGet(() -> CompletableFuture.completedFuture(null)); // gone with retention: nothing to give back
        return ackAfter(copied, held);
    }

    /** A receipt handle checked against its group, with the open checkpoint of its pop. */
    private record Held(ReceiptHandle handle, OpenCheckpoint ck) {
    }

    /** The popped message behind a receipt handle of {@code group}; throws for an invalid or finished handle. */
    private Held held(final String group, final String receiptHandle) {
        final ReceiptHandle h = validHandle(group, receiptHandle);
        return new Held(h, ledger.openCheckpoint(h));
    }

    /** The message at the handle's queue offset, unless retention has removed it since the pop. */
    private Optional<StoredMessage> stillStored(final ReceiptHandle h) {
        final PullResult read = store.read(h.topic(), h.queueId(), h.queueOffset(), 1, null);
        if (read.messages().isEmpty() || read.messages().get(0).queueOffset() != h.queueOffset()) {
            return Optional.empty();
        }
        return Optional.of(read.messages().get(0));
    }

    /** Once {@code step} (the message's copy elsewhere) is done: the durable ack record, then the message is done. */
    private CompletableFuture<Void> ackAfter(final CompletableFuture<?> step, final Held held) {
        final int index = held.handle().index();
        return step.thenCompose(r -> ledger.appendAck(held.ck(), index)).thenAccept(r -> acked(held.ck(), index));
    }

    /** A negative acknowledgement: redelivery after the group's back-off for this attempt. */
    CompletableFuture<String> nack(final String group, final String receiptHandle) {
        final ReceiptHandle h = handles.decode(receiptHandle);
        final int attempt = h == null ? 0 : h.reconsumeTimes();
        return changeInvisibleTime(group, receiptHandle,
                RetryPolicy.backoffMillis(store.group(group).orElse(null), attempt));
    }

    private ReceiptHandle validHandle(final String group, final String text) {
        final ReceiptHandle h = handles.decode(text);
        if (h == null) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "invalid receipt handle");
        }
        return ofGroup(group, h);
    }

    private static ReceiptHandle ofGroup(final String group, final ReceiptHandle h) {
        if (!h.group().equals(group)) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "receipt handle belongs to another group");
        }
        return h;
    }
}
