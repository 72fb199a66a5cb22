package io.junction.kafka;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * Idempotent producers: ids handed out by InitProducerId, and per producer and partition the epoch, the last sequence
 * appended and the last five batches (a producer has at most five in flight), so a batch sent again is answered with
 * its first append's offset instead of being stored twice.
 *
 * <p>Ids start at the start time in milliseconds shifted left 20 bits, so ids handed out after a restart are new ones.
 * State lives in memory and is rebuilt after a restart from the partition itself: the first message of each stored
 * batch carries {@value #MARK} (producer id, epoch, first and last sequence), and the first batch of a producer id
 * handed out by an earlier run that reaches a partition waits until {@link #whenKnown} has read the partition's last
 * {@value #RESTORE_WINDOW} messages for that producer's batches (later batches of it wait behind, in order). So a
 * retry that spans a restart is still answered as a duplicate, unless more than that many messages were stored in the
 * partition after its batch. Producers idle for a day are forgotten. Thread-safe.
 */
final class ProducerStates {
    /** A producer's batches remembered per partition: Kafka clients keep at most five in flight. */
    static final int REMEMBERED_BATCHES = 5;
    /** The property on a stored batch's first message: {@code producerId.epoch.firstSequence.lastSequence}. */
    static final String MARK = "__kafka.seq";
    /** Messages at a partition's end read to restore a producer's state after a restart. */
    static final int RESTORE_WINDOW = 4096;
    private static final long IDLE_MILLIS = 24L * 3600 * 1000;

    private final LongSupplier clock;
    /** The first id this run hands out: smaller ones are an earlier run's. */
    private final long firstId;
    private long nextId;
    private final Map<Key, PartitionState> states = new HashMap<>();
    /** Per producer and partition being restored: the last batch waiting for it, which the next one waits for. */
    private final Map<Key, CompletableFuture<?>> gates = new HashMap<>();

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

    /** A batch a producer stored before a restart, as its mark tells, and where it begins. */
    record StoredBatch(short epoch, int firstSequence, int lastSequence, long baseOffset) {
    }

    ProducerStates(final LongSupplier clock) {
        this.clock = clock;
        this.firstId = clock.getAsLong() << 20;
        this.nextId = firstId;
    }

    /** The mark for a batch's first message. */
    static String mark(final long producerId, final short epoch, final int firstSequence, final int lastSequence) {
        return producerId + "." + epoch + "." + firstSequence + "." + lastSequence;
    }

    /** The batch a mark of {@code producerId} describes, or null when the mark is another producer's. */
    static StoredBatch parseMark(final String mark, final long producerId, final long offset) {
        final MarkedBatch b = parseMark(mark, offset);
        return b == null || b.producerId() != producerId ? null : b.batch();
    }

    /** The producer and batch a mark describes, or null when it is not a mark. */
    static MarkedBatch parseMark(final String mark, final long offset) {
        if (mark == null) {
            return null;
        }
        final String[] parts = mark.split("\\.");
        if (parts.length != 4) {
            return null;
        }
        try {
            return new MarkedBatch(Long.parseLong(parts[0]), new StoredBatch(Short.parseShort(parts[1]),
                    Integer.parseInt(parts[2]), Integer.parseInt(parts[3]), offset));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A stored batch with the producer whose mark it carries. */
    record MarkedBatch(long producerId, StoredBatch batch) {
    }

    /** A producer as DescribeProducers shows it: its epoch and last sequence on a partition, and when it last wrote. */
    record ActiveProducer(long producerId, short epoch, int lastSequence, long lastTimestamp) {
    }

    /** The producers whose state on a partition this run holds (it wrote there, or was read back for a retry). */
    synchronized List<ActiveProducer> known(final String topic, final int partition) {
        final List<ActiveProducer> out = new ArrayList<>();
        states.forEach((key, s) -> {
            if (key.partition() == partition && key.topic().equals(topic)) {
                out.add(new ActiveProducer(key.producerId(), s.epoch, s.lastSequence, s.lastUsed));
            }
        });
        return out;
    }

    /**
     * Runs {@code action} (the batch's check and append) once this producer's state on the partition is known: at
     * once when it is in memory or the id is this run's; else after {@code find} read the producer's batches back from
     * the partition (once), the actions of batches arriving meanwhile one after the other in arrival order.
     */
    synchronized <T> CompletableFuture<T> whenKnown(final long producerId, final String topic, final int partition,
                                                    final Supplier<CompletableFuture<List<StoredBatch>>> find,
                                                    final Supplier<CompletableFuture<T>> action) {
        final Key key = new Key(producerId, topic, partition);
        CompletableFuture<?> gate = gates.get(key);
        if (gate == null) {
            if (producerId >= firstId || producerId < 0 || states.containsKey(key)) {
                return action.get();
            }
            // Not found (or unreadable): the batch is taken as from a producer not seen before.
            gate = find.get().thenAccept(found -> restore(key, found)).exceptionally(e -> null);
        }
        final CompletableFuture<T> result = gate.thenCompose(x -> action.get());
        final CompletableFuture<?> next = result.handle((r, e) -> null);
        gates.put(key, next);
        next.thenRun(() -> {
            synchronized (this) {
                gates.remove(key, next);
            }
        });
        return result;
    }

    private synchronized void restore(final Key key, final List<StoredBatch> found) {
        if (found.isEmpty() || states.containsKey(key)) {
            return;
        }
        final short epoch = found.get(found.size() - 1).epoch();
        final PartitionState s = new PartitionState();
        s.epoch = epoch;
        for (StoredBatch b : found) {
            if (b.epoch() == epoch) {
                s.recent.addLast(new Batch(b.firstSequence(), b.lastSequence(),
                        CompletableFuture.completedFuture(b.baseOffset())));
                if (s.recent.size() > REMEMBERED_BATCHES) {
                    s.recent.removeFirst();
                }
                s.lastSequence = b.lastSequence();
            }
        }
        s.lastUsed = clock.getAsLong();
        states.put(key, s);
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
