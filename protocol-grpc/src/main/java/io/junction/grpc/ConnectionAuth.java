package io.junction.grpc;

import io.grpc.Attributes;
import io.grpc.ServerTransportFilter;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * What one connection (HTTP/2 transport) remembers between its calls when security is on. It never stands in for a
 * call's own credentials: every call still carries and is checked against its {@code authorization} header.
 *
 * <ul>
 *   <li>The last signature verified on it: the 5.x client signs only its second-granular date, so every call of
 *   that second carries the same header, and recomputing the HMAC (and the user's secret) for each is waste. A
 *   remembered verification is trusted for {@link #REUSE_NANOS} at most and only while no user changed (the policy
 *   version), after which the header is verified (and its age checked) afresh.</li>
 *   <li>The action that last granted a route query: a route is allowed to whoever may publish, subscribe or get the
 *   topic, and asking the policy in the order that worked last time keeps producers' and consumers' periodic route
 *   refreshes from each counting a denial of the action they do not need.</li>
 * </ul>
 */
final class ConnectionAuth {
    /** How long a verified header is reused; short, so an expired header or a changed secret is noticed soon. */
    static final long REUSE_NANOS = 5_000_000_000L;

    static final Attributes.Key<ConnectionAuth> KEY = Attributes.Key.create("junction.grpc.connection-auth");

    /** A header this connection presented and the policy accepted, under policy version {@code version}. */
    private record Verified(String accessKey, String dateTime, byte[] signature, Principal principal, long atNanos,
                            long version) {
    }

    private volatile Verified last;
    /** The principal this connection counts against in its namespace's connection quota; null until the first call. */
    private Principal counted;
    private volatile Action routeAction = Action.PUB;

    /**
     * The principal of a header identical to the last one verified here within {@link #REUSE_NANOS} and under the
     * same policy version (a user deleted, disabled or given a new secret since is verified afresh), else null.
     */
    Principal reuse(final String accessKey, final String dateTime, final String signature, final long nowNanos,
                    final long version) {
        final Verified v = last;
        if (v == null || nowNanos - v.atNanos() > REUSE_NANOS || v.version() != version
                || !v.accessKey().equals(accessKey)
                || !v.dateTime().equals(dateTime)
                || !MessageDigest.isEqual(v.signature(), signature.getBytes(StandardCharsets.US_ASCII))) {
            return null;
        }
        return v.principal();
    }

    void verified(final String accessKey, final String dateTime, final String signature, final Principal principal,
                  final long nowNanos, final long version) {
        last = new Verified(accessKey, dateTime, signature.getBytes(StandardCharsets.US_ASCII), principal, nowNanos,
                version);
    }

    Action routeAction() {
        return routeAction;
    }

    void routeAction(final Action action) {
        routeAction = action;
    }

    /**
     * Counts the connection against the namespace quota of its first authenticated caller; false when that namespace
     * has its maximum open (the call is then refused with TOO_MANY_REQUESTS). Later callers on the same connection
     * (a client shares one connection) are not counted again.
     */
    synchronized boolean count(final AccessControl access, final Principal principal) {
        if (counted != null) {
            return true;
        }
        if (!access.connectionOpened(principal)) {
            return false;
        }
        counted = principal;
        return true;
    }

    private synchronized void release(final AccessControl access) {
        if (counted != null) {
            access.connectionClosed(counted);
            counted = null;
        }
    }

    /** Gives each new connection its state, and releases its connection quota when it ends. */
    static final class Installer extends ServerTransportFilter {
        private final AccessControl access;

        Installer(final AccessControl access) {
            this.access = access;
        }

        @Override
        public Attributes transportReady(final Attributes attributes) {
            return attributes.toBuilder().set(KEY, new ConnectionAuth()).build();
        }

        @Override
        public void transportTerminated(final Attributes attributes) {
            final ConnectionAuth auth = attributes == null ? null : attributes.get(KEY);
            if (auth != null) {
                auth.release(access);
            }
        }
    }
}
