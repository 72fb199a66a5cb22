package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The store groups a proxy reaches, by name, in order: the metadata group first, then the configured ones, then those
 * added at run time. Groups come and go while calls run, so it is copy-on-write: a reader (an iteration, a look-up)
 * sees one consistent set, and a change replaces the whole (rare: an administrator adds or removes a group).
 */
final class LiveGroupMap extends AbstractMap<String, Messaging> {
    private volatile Map<String, Messaging> current;

    LiveGroupMap(final Map<String, Messaging> initial) {
        this.current = Collections.unmodifiableMap(new LinkedHashMap<>(initial));
    }

    synchronized void add(final String name, final Messaging group) {
        final Map<String, Messaging> next = new LinkedHashMap<>(current);
        next.putIfAbsent(name, group);
        current = Collections.unmodifiableMap(next);
    }

    synchronized void remove(final String name) {
        final Map<String, Messaging> next = new LinkedHashMap<>(current);
        next.remove(name);
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
