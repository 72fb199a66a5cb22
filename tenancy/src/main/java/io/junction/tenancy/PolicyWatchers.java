package io.junction.tenancy;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link PolicyWatcher}s of one user directory, by user name, told of each change that concerns them: a user
 * whose record changed (or everyone, when the set of tenants changed) is re-checked; one who may no longer act is
 * {@linkplain PolicyWatcher#revoked revoked}, the others hear {@linkplain PolicyWatcher#rulesChanged rulesChanged}.
 * Registering and cancelling cost a map update each, once per connection; nothing here runs per operation.
 */
final class PolicyWatchers {

    private final UserDirectory users;
    private final Map<String, Set<Entry>> byUser = new ConcurrentHashMap<>();

    private record Entry(Principal principal, PolicyWatcher watcher) {
    }

    PolicyWatchers(final UserDirectory users) {
        this.users = users;
        users.addListener(this::changed);
    }

    /**
     * Registers {@code watcher} for {@code principal}. A principal that may no longer act by the time it registers is
     * revoked at once (the change that removed it may have come between its authentication and now).
     */
    PolicyWatch add(final Principal principal, final PolicyWatcher watcher) {
        final Entry entry = new Entry(principal, watcher);
        byUser.computeIfAbsent(principal.name(), n -> ConcurrentHashMap.newKeySet()).add(entry);
        if (users.activeUser(principal).isEmpty() && remove(entry)) {
            watcher.revoked();
            return PolicyWatch.NONE;
        }
        return () -> remove(entry);
    }

    private boolean remove(final Entry entry) {
        final boolean[] removed = new boolean[1];
        byUser.computeIfPresent(entry.principal().name(), (n, set) -> {
            removed[0] = set.remove(entry);
            return set.isEmpty() ? null : set;
        });
        return removed[0];
    }

    private void changed(final Set<String> names, final boolean tenantsChanged) {
        for (final String name : tenantsChanged ? Set.copyOf(byUser.keySet()) : names) {
            final Set<Entry> entries = byUser.get(name);
            if (entries == null) {
                continue;
            }
            for (final Entry e : Set.copyOf(entries)) {
                if (users.activeUser(e.principal()).isPresent()) {
                    e.watcher().rulesChanged();
                } else if (remove(e)) {
                    e.watcher().revoked();
                }
            }
        }
    }
}
