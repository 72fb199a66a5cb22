package io.junction.tenancy;

import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of an authentication: a principal, or the reason there is none. A refusal is a result, not an exception,
 * because every front-end answers it with its own protocol reply (MQTT CONNACK code, SASL outcome, HTTP 401).
 */
public final class AuthResult {
    private final Principal principal;
    private final String failure;

    private AuthResult(final Principal principal, final String failure) {
        this.principal = principal;
        this.failure = failure;
    }

    /** The credentials were accepted for {@code principal}. */
    public static AuthResult success(final Principal principal) {
        return new AuthResult(Objects.requireNonNull(principal, "principal"), null);
    }

    /** The credentials were refused; {@code reason} is for logs, never sent to the client verbatim. */
    public static AuthResult failure(final String reason) {
        return new AuthResult(null, Objects.requireNonNull(reason, "reason"));
    }

    public boolean authenticated() {
        return principal != null;
    }

    /** The accepted principal, empty on failure. */
    public Optional<Principal> principal() {
        return Optional.ofNullable(principal);
    }

    /** Why the credentials were refused, empty on success. */
    public Optional<String> failureReason() {
        return Optional.ofNullable(failure);
    }

    @Override
    public String toString() {
        return authenticated() ? "AuthResult[success " + principal + "]" : "AuthResult[failure " + failure + "]";
    }
}
