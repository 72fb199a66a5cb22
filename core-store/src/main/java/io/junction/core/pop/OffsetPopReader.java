package io.junction.core.pop;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Pops from one queue of a normal group: reads on from the group's pop offset, so each message is handed out once;
 * a message not acked in time comes back through the retry topic ({@link Reviver}), not in its place. A pop answers
 * once its checkpoint is written, without waiting for a SYNC store's fsync; the group's committed offset follows the
 * durable checkpoints, never ahead of them, so a crash that loses a checkpoint delivers its messages again.
 */
final class OffsetPopReader {
    private final PopStore store;
    private final LongSupplier clock;
    private final ReceiptHandle.Codec handles;
    private final CheckpointLedger ledger;
    private final PopQueues queues;

    OffsetPopReader(final PopStore store, final LongSupplier clock, final ReceiptHandle.Codec handles,
                    final CheckpointLedger ledger, final PopQueues queues) {
        this.store = store;
        this.clock = clock;
        this.handles = handles;
        this.ledger = ledger;
        this.queues = queues;
    }

    /** Pops up to {@code max} messages of one queue; null when it had none (or another consumer holds it). */
    PoppedBatch pop(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final PopQueues.State state = queues.of(request.group(), q.topic(), q.queueId());
        if (!state.lock.tryLock()) {
            return null; // another pop is reading this queue right now; the others are as good
        }
        try {
            if (state.popOffset < 0) {
                state.popOffset = queues.startOffset(request, q);
            }
            final PullResult read = store.read(q.topic(), q.queueId(), state.popOffset, max, request.filter());
            final long next = Math.max(read.nextOffset(), state.popOffset);
            if (read.messages().isEmpty()) {
                if (next != state.popOffset) {
                    state.popOffset = next;
                    if (state.pendingCheckpoints == 0) {
                        store.commitOffset(request.group(), q.topic(), q.queueId(), next);
                    }
                }
                return null;
            }
            state.popOffset = next;
            final List<StoredMessage> messages = read.messages();
            final long now = clock.getAsLong();
            final long deadline = now + request.invisibleMillis();
            final long[] offsets = new long[messages.size()];
            final int[] reconsume = new int[messages.size()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = messages.get(i).queueOffset();
                reconsume[i] = messages.get(i).reconsumeTimes();
            }
            final long id = ledger.nextId();
            state.pendingCheckpoints++;
            // Appended under the queue lock: checkpoints of one queue reach the log in pop order, so once one is
            // durable, all earlier ones are too, and committing its end offset can never skip a message.
            final CompletableFuture<CheckpointLedger.WrittenCheckpoint> stored = ledger.storeUnforced(false, id,
                    deadline, request.group(), q.topic(), q.queueId(), offsets, reconsume);
            final CompletableFuture<List<PoppedMessage>> popped = stored.handle((written, e) -> {
                if (e != null) {
                    state.lock.lock();
                    try {
                        state.pendingCheckpoints--;
                        // Not stored: give the messages back to the group.
                        state.popOffset = Math.min(state.popOffset, offsets[0]);
                    } finally {
                        state.lock.unlock();
                    }
                    throw new StoreException(StoreError.IO_ERROR, "pop checkpoint not stored: " + e.getMessage(), e);
                }
                // Not durable (the log cannot be forced, or the store stopped): nothing moves, and the pending count
                // keeps empty reads from committing past these messages until a restart replays what is durable.
                written.durable().thenRun(() -> commitDurable(request, q, state, next));
                final List<PoppedMessage> out = new ArrayList<>(messages.size());
                for (int i = 0; i < messages.size(); i++) {
                    final StoredMessage m = messages.get(i);
                    final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, q.topic());
                    out.add(new PoppedMessage(m, origin, new PopReceipt(new ReceiptHandle(id, i, request.group(),
                            q.topic(), q.queueId(), m.queueOffset(), m.reconsumeTimes(), deadline), handles),
                            m.reconsumeTimes()));
                }
                return out;
            });
            return new PoppedBatch(messages.size(), popped);
        } finally {
            state.lock.unlock();
        }
    }

    /** A pop's checkpoint is durable: the group's offset may move past its messages. */
    private void commitDurable(final PopRequest request, final PopStore.QueueRef q, final PopQueues.State state,
                               final long next) {
        state.lock.lock();
        try {
            state.pendingCheckpoints--;
            if (next > store.committedOffset(request.group(), q.topic(), q.queueId())) {
                store.commitOffset(request.group(), q.topic(), q.queueId(), next);
            }
        } finally {
            state.lock.unlock();
        }
    }
}
