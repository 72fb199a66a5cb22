package io.junction.tenancy;

import java.util.concurrent.CompletableFuture;

/**
 * Auth off: any credentials (or none) authenticate as {@link Principal#ANONYMOUS}, or as the presented user name, in
 * the default namespace, and every action is allowed. Keeping the presented name makes logs useful even with auth off.
 */
public final class OpenPolicy implements Authenticator, Authorizer, SignatureVerifier {

    public static final OpenPolicy INSTANCE = new OpenPolicy();

    private static final AuthResult ANONYMOUS_RESULT = AuthResult.success(Principal.ANONYMOUS);

    private OpenPolicy() {
    }

    @Override
    public CompletableFuture<AuthResult> authenticate(final Credentials credentials) {
        if (!credentials.hasUsername()) {
            // A new future each time: a shared completed future could be obtruded by any caller.
            return CompletableFuture.completedFuture(ANONYMOUS_RESULT);
        }
        return CompletableFuture.completedFuture(
                AuthResult.success(new Principal(credentials.username(), Principal.DEFAULT_NAMESPACE)));
    }

    /** Signatures are not checked; the access key names the caller, in the default namespace. */
    @Override
    public AuthResult verify(final SignedRequest request) {
        return request.accessKey().isEmpty() ? ANONYMOUS_RESULT
                : AuthResult.success(new Principal(request.accessKey(), Principal.DEFAULT_NAMESPACE));
    }

    @Override
    public Decision authorize(final Principal principal, final ResourceKind kind, final String name,
                              final Action action) {
        return Decision.ALLOW;
    }
}
