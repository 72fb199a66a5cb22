package io.junction.grpc;

import java.util.Locale;

/**
 * The {@code authorization} header of the 5.x clients (rocketmq-wire.md §4.5):
 * {@code MQv2-HMAC-SHA1 Credential=<AK>, SignedHeaders=x-mq-date-time, Signature=<HEX>}, the signature being
 * HMAC-SHA1 keyed by the user's secret over the {@code x-mq-date-time} value.
 *
 * @param accessKey the user name
 * @param signature the hex signature as sent (the verifier compares it case-insensitively)
 */
record AuthorizationHeader(String accessKey, String signature) {
    static final String ALGORITHM = "MQv2-HMAC-SHA1";
    static final String SIGNED_HEADER = "x-mq-date-time";

    /** The header's parts, or null when it is not of that form (another algorithm, a part missing or repeated). */
    static AuthorizationHeader parse(final String value) {
        if (value == null || !value.startsWith(ALGORITHM + " ")) {
            return null;
        }
        String credential = null;
        String signedHeaders = null;
        String signature = null;
        for (String part : value.substring(ALGORITHM.length() + 1).split(",")) {
            final String p = part.trim();
            final int eq = p.indexOf('=');
            if (eq <= 0) {
                return null;
            }
            final String key = p.substring(0, eq);
            final String v = p.substring(eq + 1).trim();
            switch (key) {
                case "Credential" -> {
                    if (credential != null) {
                        return null;
                    }
                    credential = v;
                }
                case "SignedHeaders" -> {
                    if (signedHeaders != null) {
                        return null;
                    }
                    signedHeaders = v;
                }
                case "Signature" -> {
                    if (signature != null) {
                        return null;
                    }
                    signature = v;
                }
                default -> {
                    // parts a later client may add are not ours to judge
                }
            }
        }
        // The signature covers exactly the date header: a client signing anything else is speaking another scheme.
        if (credential == null || credential.isEmpty() || signature == null || signature.isEmpty()
                || signedHeaders == null || !SIGNED_HEADER.equals(signedHeaders.toLowerCase(Locale.ROOT))) {
            return null;
        }
        return new AuthorizationHeader(credential, signature);
    }
}
