package io.junction.tenancy;

/**
 * When a bearer token was issued and until when it authenticates.
 *
 * @param issuedAt  epoch ms; 0 for a token issued before issue times were kept
 * @param expiresAt epoch ms from which the token no longer authenticates; 0 for a token that lasts until revoked
 */
public record TokenTerm(long issuedAt, long expiresAt) {

    public boolean expired(final long nowMillis) {
        return expiresAt > 0 && nowMillis >= expiresAt;
    }
}
