package io.junction.tenancy;

import java.net.SocketAddress;
import java.time.Instant;
import java.util.Objects;

/**
 * A request signed with a user's secret: RocketMQ Remoting's ACL hook (HMAC-SHA1 over the sorted header values and
 * the body, base64) and the gRPC client's {@code authorization} header (HMAC-SHA1 over {@code x-mq-date-time},
 * upper-case hex).
 *
 * @param protocol  the front-end's name (for audit logs)
 * @param accessKey the presented access key: the user name
 * @param content   the bytes the client signed
 * @param signature the presented signature, in {@code encoding}
 * @param encoding  how the signature is written
 * @param signedAt  when the client says it signed (checked against the allowed clock skew), or null when the scheme
 *                  carries no time
 * @param remote    the client's address
 */
public record SignedRequest(String protocol, String accessKey, byte[] content, String signature, Encoding encoding,
                            Instant signedAt, SocketAddress remote) {

    /** How a signature's bytes are written. */
    public enum Encoding {
        BASE64,
        HEX
    }

    public SignedRequest {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(encoding, "encoding");
        accessKey = accessKey == null ? "" : accessKey;
        signature = signature == null ? "" : signature;
    }

    @Override
    public String toString() {
        return "SignedRequest[protocol=" + protocol + ", accessKey=" + accessKey + ", remote=" + remote + "]";
    }
}
