package io.junction.tenancy;

/**
 * What may be shown of a bearer token after it was issued: never the token, nor its digest, but an id to name it by
 * (to revoke it), when it was issued and until when it authenticates.
 *
 * @param id       the first {@value #ID_LENGTH} hex digits of the token's {@link PasswordHash#tokenDigest digest}: a
 *                 token is 256 random bits, so part of a hash of it tells nothing of it, and names one token of a user
 * @param term when it was issued and until when it authenticates
 */
public record IssuedToken(String id, TokenTerm term) {

    static final int ID_LENGTH = 16;

    static IssuedToken of(final String digest, final TokenTerm term) {
        return new IssuedToken(idOf(digest), term);
    }

    /** The id of a token just issued, to show along with it. */
    public static String idOfToken(final String token) {
        return idOf(PasswordHash.tokenDigest(token));
    }

    static String idOf(final String digest) {
        return digest.substring(0, Math.min(ID_LENGTH, digest.length()));
    }
}
