package io.junction.cluster.proxy;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One table a proxy mirrors from its store group: replaced whole by each snapshot, changed at once by the changes
 * this proxy made through the leader (so a caller reads its own change back), and a change made after a snapshot was
 * asked for survives that snapshot (which may not hold it yet). Readers never lock.
 *
 * @param <K> the entry key
 * @param <V> the entry
 */
final class MirroredTable<K, V> {
    private final Map<K, V> entries = new ConcurrentHashMap<>();
    /** When this proxy last changed each key ({@link System#nanoTime}). */
    private final Map<K, Long> changedAt = new ConcurrentHashMap<>();

    Optional<V> get(final K key) {
        return Optional.ofNullable(entries.get(key));
    }

    Collection<V> values() {
        return List.copyOf(entries.values());
    }

    Map<K, V> view() {
        return entries;
    }

    void putLocal(final K key, final V value) {
        changedAt.put(key, System.nanoTime());
        entries.put(key, value);
    }

    void removeLocal(final K key) {
        changedAt.put(key, System.nanoTime());
        entries.remove(key);
    }

    /**
     * Takes a snapshot the leader answered to a request sent at {@code askedAt} ({@link System#nanoTime}): every
     * entry becomes the snapshot's, except those this proxy changed since it asked.
     */
    synchronized void replace(final Map<K, V> snapshot, final long askedAt) {
        changedAt.values().removeIf(t -> t - askedAt < 0);
        for (K key : List.copyOf(entries.keySet())) {
            if (!snapshot.containsKey(key) && !changedAt.containsKey(key)) {
                entries.remove(key);
            }
        }
        for (Map.Entry<K, V> e : snapshot.entrySet()) {
            if (!changedAt.containsKey(e.getKey())) {
                entries.put(e.getKey(), e.getValue());
            }
        }
    }
}
