package io.junction.tenancy;

/**
 * Checks a {@link SignedRequest}. Synchronous: the secret is in memory and an HMAC is cheap, and the signature
 * schemes sign every request, so front-ends call it inline.
 */
@FunctionalInterface
public interface SignatureVerifier {
    AuthResult verify(SignedRequest request);
}
