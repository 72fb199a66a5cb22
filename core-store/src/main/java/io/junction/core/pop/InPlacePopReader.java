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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Pops from one queue of an in-place group: the oldest messages available first (given back, or passed over by
 * other pops' filters), then ones never looked at. A message the filter does not select stays for the group's
 * other pops (it is not consumed by being skipped, as it is for a subscription).
 */
final class InPlacePopReader {
    private final PopStore store;
    private final LongSupplier clock;
    private final ReceiptHandle.Codec handles;
    private final CheckpointLedger ledger;
    private final PopQueues queues;

    InPlacePopReader(final PopStore store, final LongSupplier clock, final ReceiptHandle.Codec handles,
                     final CheckpointLedger ledger, final PopQueues queues) {
        this.store = store;
        this.clock = clock;
        this.handles = handles;
        this.ledger = ledger;
        this.queues = queues;
    }

    /** Pops up to {@code max} messages of one queue; null when none is available (or another consumer holds it). */
    PoppedBatch pop(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final PopQueues.State state = queues.of(request.group(), q.topic(), q.queueId());
        if (!state.lock.tryLock()) {
            return null;
        }
        try {
            final TrackedQueue tracked = queues.trackedQueue(state, request.group(), q);
            final List<StoredMessage> taken = new ArrayList<>();
            final List<Integer> deliveries = new ArrayList<>();
            int scanned = 0;
            boolean baseMoved = false;
            long at = tracked.base();
            while (taken.size() < max && scanned < PopService.IN_PLACE_SCAN_LIMIT
                    && (at = tracked.nextAvailable(at)) >= 0) {
                if (!tracked.passedOverBy(at, request.filter())) {
                    scanned++;
                    final StoredMessage m = readAt(q, at);
                    if (m == null) {
                        baseMoved |= tracked.markDone(at); // gone (retention): nothing to deliver any more
                    } else if (selects(request, m)) {
                        deliveries.add(tracked.deliveries(at));
                        tracked.markInFlight(at, tracked.deliveries(at));
                        taken.add(m);
                    } else {
                        tracked.passOver(at, request.filter());
                    }
                }
                at++;
            }
            long offset = tracked.frontier();
            scan:
            while (taken.size() < max && scanned < PopService.IN_PLACE_SCAN_LIMIT
                    && offset - tracked.base() < PopService.IN_PLACE_WINDOW) {
                final PullResult read = store.read(q.topic(), q.queueId(), offset,
                        Math.min(32, PopService.IN_PLACE_SCAN_LIMIT - scanned), null);
                final long next = Math.max(read.nextOffset(), offset);
                int i = 0;
                for (long o = offset; o < next; o++) {
                    final StoredMessage m = i < read.messages().size() && read.messages().get(i).queueOffset() == o
                            ? read.messages().get(i++) : null;
                    scanned++;
                    tracked.lookedUpTo(o + 1);
                    if (m == null) {
                        baseMoved |= tracked.markDone(o); // no message at this offset
                    } else if (!tracked.isAvailable(o)) {
                        tracked.passOver(o, null); // in flight or done (known from before a restart)
                    } else if (selects(request, m)) {
                        deliveries.add(tracked.deliveries(o));
                        tracked.markInFlight(o, tracked.deliveries(o));
                        taken.add(m);
                        if (taken.size() >= max) {
                            break scan;
                        }
                    } else {
                        tracked.passOver(o, request.filter());
                    }
                }
                if (next == offset) {
                    break; // the end of the queue
                }
                offset = next;
            }
            if (baseMoved) {
                store.commitOffset(request.group(), q.topic(), q.queueId(), tracked.base());
            }
            return taken.isEmpty() ? null : checkpointed(request, q, state, taken, deliveries);
        } finally {
            state.lock.unlock();
        }
    }

    /** The message at one offset of a queue, or null when there is none (any more). */
    private StoredMessage readAt(final PopStore.QueueRef q, final long offset) {
        final PullResult read = store.read(q.topic(), q.queueId(), offset, 1, null);
        return read.messages().isEmpty() || read.messages().get(0).queueOffset() != offset ? null
                : read.messages().get(0);
    }

    private static boolean selects(final PopRequest request, final StoredMessage m) {
        return request.filter().matchesTagHash(TagFilter.tagHash(m.tag()))
                && request.filter().matches(m.properties(), m.bornTimestamp());
    }

    /**
     * Writes the checkpoint of the messages taken, not waiting for its fsync (see
     * {@link CheckpointLedger#storeUnforced}); if it cannot be written, they are available again.
     */
    private PoppedBatch checkpointed(final PopRequest request, final PopStore.QueueRef q, final PopQueues.State state,
                                     final List<StoredMessage> taken, final List<Integer> deliveries) {
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
                                state.tracked.release(o, true);
                            }
                        });
                        throw new StoreException(StoreError.IO_ERROR, "pop checkpoint not stored: "
                                + e.getMessage(), e);
                    }
                    final List<PoppedMessage> out = new ArrayList<>(taken.size());
                    for (int i = 0; i < taken.size(); i++) {
                        final StoredMessage m = taken.get(i);
                        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, q.topic());
                        out.add(new PoppedMessage(m, origin, new PopReceipt(new ReceiptHandle(id, i,
                                request.group(), q.topic(), q.queueId(), m.queueOffset(), counts[i], deadline),
                                handles), counts[i]));
                    }
                    return out;
                });
        return new PoppedBatch(taken.size(), popped);
    }
}
