package io.junction.mqtt;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Grants;
import io.junction.tenancy.PolicyWatch;
import io.junction.tenancy.PolicyWatcher;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;

/**
 * The user of one connection, from the admission of its CONNECT to the connection's end: its principal, its slot in
 * the namespace's connection quota, its PUB and SUB grants, and the watch that follows its rules while connected.
 *
 * <p>The grants are remembered until the rules change. PUB is asked for every PUBLISH, SUB for every message delivered:
 * a subscription whose SUB was taken away stops delivering at once, and starts again when it is given back.
 */
final class ConnectionUser {
    private final AccessControl access;
    private Principal principal = Principal.ANONYMOUS;
    /** Whether this connection counts against its namespace's connection quota (released when it closes). */
    private boolean counted;
    private Grants topicWrites;
    private Grants topicReads;
    private Grants shareReads;
    /** Follows the user's rules while connected: a deleted or disabled user is disconnected (0x98). */
    private PolicyWatch watch = PolicyWatch.NONE;

    ConnectionUser(final AccessControl access) {
        this.access = access;
    }

    Principal principal() {
        return principal;
    }

    /**
     * Admits the authenticated principal: takes a slot of its namespace's connection quota, its grants, and a watch on
     * its rules. False when the quota is exhausted (nothing is held then).
     */
    boolean admit(final Principal authenticated, final PolicyWatcher watcher) {
        principal = authenticated;
        if (!access.connectionOpened(principal)) {
            return false;
        }
        counted = true;
        topicWrites = access.grants(principal, ResourceKind.TOPIC, Action.PUB);
        topicReads = access.grants(principal, ResourceKind.TOPIC, Action.SUB);
        shareReads = access.grants(principal, ResourceKind.GROUP, Action.SUB);
        watch = access.watch(principal, watcher);
        return true;
    }

    /** The connection closed: gives back its quota slot and stops following the rules. */
    void release() {
        if (counted) {
            counted = false;
            access.connectionClosed(principal);
        }
        watch.cancel();
    }

    /** Whether the user may publish to the core topic now. */
    boolean mayWrite(final String coreTopic) {
        return topicWrites.allows(coreTopic);
    }

    /** Whether the user may receive messages of the core topic now (on its own subscriptions). */
    boolean mayRead(final String coreTopic) {
        return topicReads.allows(coreTopic);
    }

    /** Whether the user may receive messages of the core topic through the core share group now. */
    boolean mayReadShared(final String coreTopic, final String shareGroup) {
        return topicReads.allows(coreTopic) && shareReads.allows(shareGroup);
    }
}
