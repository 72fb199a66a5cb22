package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store groups a proxy reaches, by name, in order: the metadata group first, then the configured ones, then those
 * added at run time. Groups come and go while calls run, so it is copy-on-write: a reader (an iteration, a look-up)
 * sees one consistent set, and a change replaces the whole (rare: an administrator adds or removes a group).
 *
 * <p>Each group also has a number ({@link #ordinal}) that tells apart what two groups number alike
 * ({@link GroupNumbering}), the same on every proxy: the configured groups are numbered by their place in
 * {@code cluster.store-groups} (the metadata group 0; every proxy is configured alike), a group added at run time
 * carries the number recorded with it in the metadata group ({@link RuntimeGroupBook}).
 */
final class LiveGroupMap extends AbstractMap<String, Messaging> {
    private volatile Map<String, Messaging> current;
    private final Map<String, Integer> ordinals = new ConcurrentHashMap<>();

    LiveGroupMap(final Map<String, Messaging> initial) {
        this.current = Collections.unmodifiableMap(new LinkedHashMap<>(initial));
        initial.keySet().forEach(name -> ordinals.put(name, ordinals.size()));
    }

    /** Adds a group under the number recorded for it ({@link RuntimeGroupBook}). */
    synchronized void add(final String name, final Messaging group, final int number) {
        final Map<String, Messaging> next = new LinkedHashMap<>(current);
        next.putIfAbsent(name, group);
        ordinals.putIfAbsent(name, number);
        current = Collections.unmodifiableMap(next);
    }

    /** The group's number (0: the metadata group), -1 for a group never reached. */
    int ordinal(final String name) {
        return ordinals.getOrDefault(name, -1);
    }

    /** The group numbered {@code ordinal}, null when none is (or it was removed since). */
    String named(final int ordinal) {
        for (Map.Entry<String, Integer> e : ordinals.entrySet()) {
            if (e.getValue() == ordinal) {
                return current.containsKey(e.getKey()) ? e.getKey() : null;
            }
        }
        return null;
    }

    /**
     * The group a commit-log offset the proxy handed out names ({@link GroupNumbering}): the metadata group for an
     * untagged offset, null when the group named is not live (removed since).
     */
    String namedBy(final long handedOutOffset) {
        return named(GroupNumbering.ordinalOf(handedOutOffset));
    }

    synchronized void remove(final String name) {
        final Map<String, Messaging> next = new LinkedHashMap<>(current);
        next.remove(name);
        ordinals.remove(name);
        current = Collections.unmodifiableMap(next);
    }

    @Override
    public Messaging get(final Object name) {
        return current.get(name);
    }

    @Override
    public boolean containsKey(final Object name) {
        return current.containsKey(name);
    }

    @Override
    public Set<Entry<String, Messaging>> entrySet() {
        return current.entrySet();
    }
}
