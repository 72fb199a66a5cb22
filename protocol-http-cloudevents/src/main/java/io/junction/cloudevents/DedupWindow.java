package io.junction.cloudevents;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The keys seen within a fixed window, each with the value of its first sighting: {@link #putIfAbsent} answers the
 * earlier value while the key is remembered. A key is forgotten once the window has passed since it was first put,
 * or earlier when more than {@code maxEntries} are remembered (oldest first).
 *
 * <p>Every entry lives exactly the window, so insertion order is expiry order and a FIFO is all the bookkeeping
 * needed: one map insert and one short locked deque step per put. (A general cache did the same job at about 13 % of
 * an event loop's time under ingress load, with its frequency sketch and buffer draining.)
 */
final class DedupWindow<V> {
    private record Entry<V>(String key, V value, long bornNanos) {
    }

    private final ConcurrentHashMap<String, Entry<V>> entries = new ConcurrentHashMap<>();
    /** Entries in the order they were put, which is the order they expire in; guarded by itself. */
    private final ArrayDeque<Entry<V>> order = new ArrayDeque<>();
    private final long windowNanos;
    private final int maxEntries;
    private final LongSupplier nanoClock;

    DedupWindow(final long windowNanos, final int maxEntries, final LongSupplier nanoClock) {
        if (windowNanos <= 0 || maxEntries <= 0) {
            throw new IllegalArgumentException("window and size must be positive");
        }
        this.windowNanos = windowNanos;
        this.maxEntries = maxEntries;
        this.nanoClock = nanoClock;
    }

    /** Remembers {@code value} for {@code key} unless the key is remembered; returns the earlier value, or null. */
    V putIfAbsent(final String key, final V value) {
        final long now = nanoClock.getAsLong();
        final Entry<V> mine = new Entry<>(key, value, now);
        while (true) {
            final Entry<V> earlier = entries.putIfAbsent(key, mine);
            if (earlier == null) {
                break;
            }
            if (now - earlier.bornNanos < windowNanos) {
                return earlier.value;
            }
            if (entries.replace(key, earlier, mine)) { // expired but not yet swept
                break;
            }
        }
        synchronized (order) {
            order.addLast(mine);
            for (Entry<V> head; (head = order.peekFirst()) != null; ) {
                if (order.size() <= maxEntries && now - head.bornNanos < windowNanos) {
                    break;
                }
                order.pollFirst();
                entries.remove(head.key, head);
            }
        }
        return null;
    }

    /** Forgets {@code key} if it still maps to {@code value} (a failed store, so a retry may store it). */
    void forget(final String key, final V value) {
        final Entry<V> current = entries.get(key);
        if (current != null && current.value == value) {
            entries.remove(key, current);
        }
    }

    /** Keys remembered (expired ones not yet swept included). */
    int size() {
        return entries.size();
    }
}
