package io.junction.tenancy;

/**
 * Where authentication failures and authorization denials are reported, for audit metrics. Called on hot paths:
 * implementations only count.
 */
public interface SecurityEvents {

    SecurityEvents NONE = new SecurityEvents() {
        @Override
        public void authenticationFailed(final String protocol, final String reason) {
        }

        @Override
        public void denied(final ResourceKind kind, final Action action) {
        }
    };

    /** A client's credentials were refused; {@code reason} is a short fixed word (bad-password, throttled, ...). */
    void authenticationFailed(String protocol, String reason);

    /** An authorization was denied. */
    void denied(ResourceKind kind, Action action);

    /** A publish ({@code "publish"}) or a connection ({@code "connection"}) was refused by a namespace's quota. */
    default void quotaExceeded(final String what) {
    }
}
