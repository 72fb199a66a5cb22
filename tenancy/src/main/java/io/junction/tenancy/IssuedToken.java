package io.junction.tenancy;

/**
 * What may be shown of a bearer token after it was issued: never the token, nor its digest, but an id to name it by
 * (to revoke it) and when it was issued.
 *
 * @param id       the first {@value #ID_LENGTH} hex digits of the token's {@link PasswordHash#tokenDigest digest}: a
 *                 token is 256 random bits, so part of a hash of it tells nothing of it, and names one token of a user
 * @param issuedAt when it was issued (epoch ms), 0 for a token issued before issue times were kept
 */
public record IssuedToken(String id, long issuedAt) {

    static final int ID_LENGTH = 16;

    static IssuedToken of(final String digest, final long issuedAt) {
        return new IssuedToken(idOf(digest), issuedAt);
    }

    /** The id of a token just issued, to show along with it. */
    public static String idOfToken(final String token) {
        return idOf(PasswordHash.tokenDigest(token));
    }

    static String idOf(final String digest) {
        return digest.substring(0, Math.min(ID_LENGTH, digest.length()));
    }
}
