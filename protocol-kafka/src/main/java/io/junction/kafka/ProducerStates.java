package io.junction.kafka;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * Idempotent producers: ids handed out by InitProducerId, and per producer and partition the epoch, the last sequence
 * appended and the last five batches (a producer has at most five in flight), so a batch sent again is answered with
 * its first append's offset instead of being stored twice.
 *
 * <p>Ids start at the start time in milliseconds shifted left 20 bits, so ids handed out after a restart are new ones.
 * State lives in memory: after a restart a producer's next batch is taken at whatever sequence it carries (as for a
 * producer not seen before), so a retry that spans a restart may be stored twice. Producers idle for a day are
 * forgotten. Thread-safe.
 */
final class ProducerStates {
    /** A producer's batches remembered per partition: Kafka clients keep at most five in flight. */
    static final int REMEMBERED_BATCHES = 5;
    private static final long IDLE_MILLIS = 24L * 3600 * 1000;

    private final LongSupplier clock;
    private long nextId;
    private final Map<Key, PartitionState> states = new HashMap<>();

    private record Key(long producerId, String topic, int partition) {
    }

    /** One appended (or appending) batch: its sequence range and where it went. */
    private record Batch(int firstSequence, int lastSequence, CompletableFuture<Long> baseOffset) {
    }

    private static final class PartitionState {
        short epoch;
        int lastSequence;
        long lastUsed;
        final ArrayDeque<Batch> recent = new ArrayDeque<>();
    }

    /**
     * What to do with a batch: append it (then report the outcome to {@code appended}), answer with the offset of the
     * same batch appended before ({@code duplicateOf}), or refuse it with {@code error}.
     */
    record Decision(Errors error, CompletableFuture<Long> duplicateOf, CompletableFuture<Long> appended) {
        boolean isAppend() {
            return appended != null;
        }
    }

    ProducerStates(final LongSupplier clock) {
        this.clock = clock;
        this.nextId = clock.getAsLong() << 20;
    }

    /** A new producer id (InitProducerId without a transactional id). */
    synchronized long newProducerId() {
        sweep();
        return nextId++;
    }

    /** Checks a batch of an idempotent producer against what it sent before on this partition. */
    synchronized Decision check(final long producerId, final short epoch, final String topic, final int partition,
                                final int firstSequence, final int lastSequence) {
        final Key key = new Key(producerId, topic, partition);
        PartitionState s = states.get(key);
        if (s != null && epoch < s.epoch) {
            return new Decision(Errors.INVALID_PRODUCER_EPOCH, null, null);
        }
        if (s != null && epoch == s.epoch) {
            for (Batch b : s.recent) {
                if (b.firstSequence == firstSequence && b.lastSequence == lastSequence) {
                    s.lastUsed = clock.getAsLong();
                    return new Decision(Errors.NONE, b.baseOffset, null);
                }
            }
            if (firstSequence != next(s.lastSequence)) {
                return new Decision(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, null, null);
            }
        } else if (s != null && firstSequence != 0) {
            // A new epoch starts its sequences at 0.
            return new Decision(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, null, null);
        }
        if (s == null || epoch != s.epoch) {
            s = new PartitionState();
            s.epoch = epoch;
            states.put(key, s);
        }
        final Batch batch = new Batch(firstSequence, lastSequence, new CompletableFuture<>());
        s.recent.addLast(batch);
        if (s.recent.size() > REMEMBERED_BATCHES) {
            s.recent.removeFirst();
        }
        s.lastSequence = lastSequence;
        s.lastUsed = clock.getAsLong();
        final PartitionState state = s;
        batch.baseOffset.whenComplete((offset, failure) -> {
            if (failure != null) {
                forget(state, batch);
            }
        });
        return new Decision(Errors.NONE, null, batch.baseOffset);
    }

    /** A batch that was not stored: a retry of it is appended, not answered as a duplicate. */
    private synchronized void forget(final PartitionState s, final Batch batch) {
        s.recent.remove(batch);
        if (s.lastSequence == batch.lastSequence) {
            s.lastSequence = batch.firstSequence == 0 ? -1 : batch.firstSequence - 1;
        }
    }

    private static int next(final int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }

    private void sweep() {
        final long oldest = clock.getAsLong() - IDLE_MILLIS;
        for (Iterator<PartitionState> it = states.values().iterator(); it.hasNext(); ) {
            if (it.next().lastUsed < oldest) {
                it.remove();
            }
        }
    }
}
