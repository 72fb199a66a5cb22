package io.junction.remoting.security;

import io.junction.remoting.protocol.RemotingCommand;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes RocketMQ's {@code AclClientRPCHook} signs: the values of every header field except {@code Signature}
 * (the access key and security token included), concatenated in the order of their names, as UTF-8, followed by the
 * body. The client signs after it has put the access key in, so the access key is part of what is signed.
 */
final class SignedContent {
    /** Header field holding the user name. */
    static final String ACCESS_KEY = "AccessKey";
    /** Header field holding the base64 HMAC-SHA1 of the content. */
    static final String SIGNATURE = "Signature";

    private SignedContent() {
    }

    static byte[] of(final RemotingCommand request) {
        final Map<String, String> fields = request.extFields();
        final StringBuilder sb = new StringBuilder(256);
        if (fields != null) {
            // TreeMap: the client sorts with String's natural order, and so must we, byte for byte.
            for (Map.Entry<String, String> e : new TreeMap<>(fields).entrySet()) {
                if (!SIGNATURE.equals(e.getKey())) {
                    sb.append(e.getValue());
                }
            }
        }
        final byte[] header = sb.toString().getBytes(StandardCharsets.UTF_8);
        final byte[] body = request.body();
        if (body == null || body.length == 0) {
            return header;
        }
        final byte[] out = new byte[header.length + body.length];
        System.arraycopy(header, 0, out, 0, header.length);
        System.arraycopy(body, 0, out, header.length, body.length);
        return out;
    }
}
