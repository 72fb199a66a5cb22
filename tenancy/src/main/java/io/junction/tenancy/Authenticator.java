package io.junction.tenancy;

import java.util.concurrent.CompletableFuture;

/**
 * Checks credentials once per connection (or per request on connectionless protocols).
 *
 * <p>Asynchronous because a real implementation may consult a user store; front-ends call it from an event loop and
 * continue in the completion. A refusal completes normally with {@link AuthResult#failure(String)}; only an internal
 * error completes exceptionally.
 */
@FunctionalInterface
public interface Authenticator {
    CompletableFuture<AuthResult> authenticate(Credentials credentials);
}
