package io.junction.tenancy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts the secrets the HMAC signature schemes need in clear at verification time (RocketMQ Remoting and gRPC
 * clients sign with the secret itself, so it cannot be stored as a one-way hash). AES-256-GCM with a random nonce;
 * the key is the SHA-256 of the configured key text, so any passphrase works and a wrong key fails loudly (GCM tag)
 * instead of yielding garbage.
 */
public final class SecretCipher {

    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    public SecretCipher(final String keyText) {
        if (keyText == null || keyText.isEmpty()) {
            throw new IllegalArgumentException("the secret encryption key is empty");
        }
        try {
            this.key = new SecretKeySpec(MessageDigest.getInstance("SHA-256")
                    .digest(keyText.getBytes(StandardCharsets.UTF_8)), "AES");
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code base64(nonce || ciphertext+tag)}. */
    public String encrypt(final String secret) {
        final byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            final Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            final byte[] sealed = c.doFinal(secret.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(ByteBuffer.allocate(nonce.length + sealed.length)
                    .put(nonce).put(sealed).array());
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM is part of every Java runtime", e);
        }
    }

    /** The secret sealed by {@link #encrypt}; throws {@link IllegalArgumentException} if the key does not open it. */
    public String decrypt(final String sealed) {
        final byte[] all = Base64.getDecoder().decode(sealed);
        if (all.length <= NONCE_BYTES) {
            throw new IllegalArgumentException("sealed secret too short");
        }
        try {
            final Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, all, 0, NONCE_BYTES));
            return new String(c.doFinal(all, NONCE_BYTES, all.length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (final AEADBadTagException e) {
            throw new IllegalArgumentException("the configured secret key does not open a stored secret", e);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
