package io.junction.core.pop;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.filter.TagFilter;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Pops from one queue of a FIFO group: scanning from the base of the queue's {@link TrackedQueue}, takes at most one
 * message per message group, and none of a group that has an earlier message not done yet.
 */
final class FifoPopReader {
    /** Most entries one FIFO pop looks at past the base. */
    private static final int SCAN_LIMIT = 2048;

    private final PopStore store;
    private final LongSupplier clock;
    private final ReceiptHandle.Codec handles;
    private final CheckpointLedger ledger;
    private final PopQueues queues;

    FifoPopReader(final PopStore store, final LongSupplier clock, final ReceiptHandle.Codec handles,
                  final CheckpointLedger ledger, final PopQueues queues) {
        this.store = store;
        this.clock = clock;
        this.handles = handles;
        this.ledger = ledger;
        this.queues = queues;
    }

    /** Pops up to {@code max} messages of one queue; null when none is free (or another consumer holds it). */
    PoppedBatch pop(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final PopQueues.State state = queues.of(request.group(), q.topic(), q.queueId());
        if (!state.lock.tryLock()) {
            return null;
        }
        try {
            if (state.tracked == null) {
                state.tracked = new TrackedQueue(queues.startOffset(request, q));
            }
            final TrackedQueue fifo = state.tracked;
            final List<StoredMessage> taken = new ArrayList<>();
            final List<Integer> deliveries = new ArrayList<>();
            final Set<String> blocked = new HashSet<>();
            long offset = fifo.base();
            int scanned = 0;
            boolean baseMoved = false;
            scan:
            while (taken.size() < max && scanned < SCAN_LIMIT) {
                final PullResult read = store.read(q.topic(), q.queueId(), offset, 32, null);
                if (read.messages().isEmpty()) {
                    if (read.nextOffset() > offset) {
                        offset = read.nextOffset();
                        continue;
                    }
                    break;
                }
                for (StoredMessage m : read.messages()) {
                    scanned++;
                    final long at = m.queueOffset();
                    final String messageGroup = m.property(MessageProperties.MESSAGE_GROUP);
                    // A message without a group orders with nothing.
                    final String orderKey = messageGroup == null ? "\u0000" + at : messageGroup;
                    if (fifo.isDone(at)) {
                        continue;
                    }
                    if (fifo.isInFlight(at) || blocked.contains(orderKey)) {
                        blocked.add(orderKey);
                        continue;
                    }
                    if (!request.filter().matchesTagHash(TagFilter.tagHash(m.tag()))
                            || !request.filter().matches(m.properties(), m.bornTimestamp())) {
                        baseMoved |= fifo.markDone(at); // not for this subscription: consumed by skipping it
                        continue;
                    }
                    blocked.add(orderKey);
                    taken.add(m);
                    deliveries.add(fifo.deliveries(at));
                    fifo.markInFlight(at, fifo.deliveries(at));
                    if (taken.size() >= max) {
                        break scan;
                    }
                }
                offset = read.nextOffset();
            }
            if (baseMoved) {
                store.commitOffset(request.group(), q.topic(), q.queueId(), fifo.base());
            }
            if (taken.isEmpty()) {
                return null;
            }
            return checkpointed(request, q, state, taken, deliveries);
        } finally {
            state.lock.unlock();
        }
    }

    /**
     * Writes the checkpoint of the messages taken, not waiting for its fsync (see
     * {@link CheckpointLedger#storeUnforced}); if it cannot be written, they are available again.
     */
    private PoppedBatch checkpointed(final PopRequest request, final PopStore.QueueRef q, final PopQueues.State state,
                                     final List<StoredMessage> taken, final List<Integer> deliveries) {
        final TrackedQueue fifo = state.tracked;
        final long deadline = clock.getAsLong() + request.invisibleMillis();
        final long[] offsets = new long[taken.size()];
        final int[] counts = new int[taken.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = taken.get(i).queueOffset();
            counts[i] = deliveries.get(i);
        }
        final long id = ledger.nextId();
        final CompletableFuture<List<PoppedMessage>> popped = ledger.storeUnforced(true, id, deadline,
                request.group(), q.topic(), q.queueId(), offsets, counts).handle((written, e) -> {
                    if (e != null) {
                        state.withLock(() -> {
                            for (long o : offsets) {
                                fifo.release(o, true);
                            }
                        });
                        throw new StoreException(StoreError.IO_ERROR, "pop checkpoint not stored: "
                                + e.getMessage(), e);
                    }
                    final List<PoppedMessage> out = new ArrayList<>(taken.size());
                    for (int i = 0; i < taken.size(); i++) {
                        final StoredMessage m = taken.get(i);
                        out.add(new PoppedMessage(m, q.topic(), new PopReceipt(new ReceiptHandle(id, i,
                                request.group(), q.topic(), q.queueId(), m.queueOffset(), counts[i], deadline),
                                handles), counts[i]));
                    }
                    return out;
                });
        return new PoppedBatch(taken.size(), popped);
    }
}
