package io.junction.tenancy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Salted PBKDF2 (HMAC-SHA256) password hashes, written {@code pbkdf2-sha256$iterations$salt$hash} (base64 parts), so
 * the iteration count can grow without invalidating stored hashes.
 *
 * <p>Deliberately slow: a connection authenticates once, and a stolen user file must not yield passwords cheaply.
 * {@link SecurePolicy} caches successful checks so a reconnect storm does not pay it again.
 */
public final class PasswordHash {

    private static final String SCHEME = "pbkdf2-sha256";
    private static final int ITERATIONS = 120_000;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BITS = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private PasswordHash() {
    }

    /** A new hash of {@code password} with a fresh salt. */
    public static String hash(final String password) {
        final byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        final Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
        return SCHEME + '$' + ITERATIONS + '$' + b64.encodeToString(salt) + '$'
                + b64.encodeToString(derive(password, salt, ITERATIONS));
    }

    /** Whether {@code password} matches {@code stored}; false for a malformed {@code stored}. Constant time. */
    public static boolean matches(final String password, final String stored) {
        if (stored == null) {
            return false;
        }
        final String[] parts = stored.split("\\$");
        if (parts.length != 4 || !SCHEME.equals(parts[0])) {
            return false;
        }
        try {
            final int iterations = Integer.parseInt(parts[1]);
            final byte[] salt = Base64.getDecoder().decode(parts[2]);
            final byte[] expected = Base64.getDecoder().decode(parts[3]);
            return MessageDigest.isEqual(expected, derive(password, salt, iterations));
        } catch (final IllegalArgumentException e) {
            return false;
        }
    }

    private static byte[] derive(final String password, final byte[] salt, final int iterations) {
        final PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, HASH_BITS);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is part of every Java 17 runtime", e);
        } finally {
            spec.clearPassword();
        }
    }

    /** SHA-256 of a bearer token, hex: tokens are random and long, so a fast hash suffices and lookup is by hash. */
    public static String tokenDigest(final String token) {
        try {
            final byte[] d = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            final StringBuilder hex = new StringBuilder(d.length * 2);
            for (final byte b : d) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
