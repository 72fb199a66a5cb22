package io.junction.core.group;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Leases on queues for orderly offset consumption: a client of a group holds a queue exclusively until it unlocks
 * it or its lease runs out without renewal (RocketMQ's LOCK_BATCH_MQ / UNLOCK_BATCH_MQ).
 */
public final class QueueLocks {
    private record Key(String group, String topic, int queueId) {
    }

    private record Lease(String clientId, long expiresAt) {
    }

    private final Map<Key, Lease> leases = new ConcurrentHashMap<>();
    private final LongSupplier clock;
    private final long leaseMillis;

    public QueueLocks(final LongSupplier clock, final Duration lease) {
        this.clock = clock;
        this.leaseMillis = lease.toMillis();
    }

    /** Locks (or renews) the queues for the client; returns the ones it now holds. */
    public Set<Integer> lock(final String group, final String clientId, final String topic,
                             final Set<Integer> queueIds) {
        final long now = clock.getAsLong();
        final Set<Integer> held = new TreeSet<>();
        for (int q : queueIds) {
            final Lease granted = leases.compute(new Key(group, topic, q), (k, current) ->
                    current == null || current.clientId().equals(clientId) || current.expiresAt() <= now
                            ? new Lease(clientId, now + leaseMillis) : current);
            if (granted.clientId().equals(clientId)) {
                held.add(q);
            }
        }
        return held;
    }

    /** Releases the client's locks on the queues (others' locks are untouched). */
    public void unlock(final String group, final String clientId, final String topic, final Set<Integer> queueIds) {
        for (int q : queueIds) {
            leases.computeIfPresent(new Key(group, topic, q),
                    (k, current) -> current.clientId().equals(clientId) ? null : current);
        }
    }

    /** Whether the client holds a live lock on the queue. */
    public boolean isLockedBy(final String group, final String clientId, final String topic, final int queueId) {
        final Lease lease = leases.get(new Key(group, topic, queueId));
        return lease != null && lease.clientId().equals(clientId) && lease.expiresAt() > clock.getAsLong();
    }
}
