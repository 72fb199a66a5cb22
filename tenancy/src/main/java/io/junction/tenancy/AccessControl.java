package io.junction.tenancy;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The one object a front-end asks: authenticate a connection, then authorize each operation.
 *
 * <p>It pairs an {@link Authenticator} with an {@link Authorizer} so the broker can swap the policy (open, ACL file,
 * external) without front-ends knowing which one runs.
 */
public final class AccessControl {
    private final Authenticator authenticator;
    private final Authorizer authorizer;

    public AccessControl(final Authenticator authenticator, final Authorizer authorizer) {
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
    }

    /** Everyone is anonymous in the default namespace and everything is allowed: the embedded default. */
    public static AccessControl open() {
        return new AccessControl(OpenPolicy.INSTANCE, OpenPolicy.INSTANCE);
    }

    public CompletableFuture<AuthResult> authenticate(final Credentials credentials) {
        return authenticator.authenticate(credentials);
    }

    public Decision authorize(final Principal principal, final ResourceKind kind, final String name,
                              final Action action) {
        return authorizer.authorize(principal, kind, name, action);
    }

    /** Shorthand for {@code authorize(...).allowed()}. */
    public boolean allows(final Principal principal, final ResourceKind kind, final String name, final Action action) {
        return authorize(principal, kind, name, action).allowed();
    }
}
