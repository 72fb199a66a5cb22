package io.junction.tenancy;

import java.util.HashSet;
import java.util.Set;

/**
 * What one principal may do of one action on resources of one kind, remembered until the rules change: a connection
 * (link, session) asks it before every operation, and only the first operation on a resource after a change of the
 * rules asks the policy; the others cost a read of the {@linkplain AccessControl#policyVersion policy version} and a
 * set look-up.
 *
 * <p>Only allowed names are remembered: a denial is asked afresh each time, so each one is counted and audited.
 * Not thread-safe: one instance per connection (or link), used from its thread.
 */
public final class Grants {
    /** Names remembered at most; a connection naming more starts over (each then costs one decision again). */
    static final int MAX_REMEMBERED = 1024;

    private final AccessControl access;
    private final Principal principal;
    private final ResourceKind kind;
    private final Action action;
    private final Set<String> allowed = new HashSet<>();
    private long version;

    Grants(final AccessControl access, final Principal principal, final ResourceKind kind, final Action action) {
        this.access = access;
        this.principal = principal;
        this.kind = kind;
        this.action = action;
        this.version = access.policyVersion();
    }

    /** Whether the principal may act on {@code name} (a core name) under the rules in force now. */
    public boolean allows(final String name) {
        final long now = access.policyVersion(); // read before deciding: a decision is never older than its version
        if (now != version) {
            allowed.clear();
            version = now;
        } else if (allowed.contains(name)) {
            return true;
        }
        if (!access.allows(principal, kind, name, action)) {
            return false;
        }
        if (allowed.size() >= MAX_REMEMBERED) {
            allowed.clear();
        }
        allowed.add(name);
        return true;
    }
}
