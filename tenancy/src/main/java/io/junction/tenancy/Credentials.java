package io.junction.tenancy;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * What a client presented when it connected, in a protocol-neutral form.
 *
 * <p>Each front-end maps its own mechanism here: MQTT CONNECT user name and password, AMQP SASL PLAIN, an HTTP
 * {@code Authorization} header (Basic: a password; Bearer: a token). Signature schemes (RocketMQ Remoting and gRPC)
 * present a {@link SignedRequest} instead, as they prove knowledge of a secret without sending it.
 *
 * @param protocol the front-end's name (for policies and audit logs)
 * @param kind     what {@code secret} is
 * @param username the presented user name; empty when none was presented (always empty for a token)
 * @param secret   the presented password or token; empty when none was presented
 * @param remote   the client's address
 */
public record Credentials(String protocol, Kind kind, String username, String secret, SocketAddress remote) {

    /** What the secret is. */
    public enum Kind {
        /** A user name and password (or nothing, when both are empty). */
        PASSWORD,
        /** A bearer token issued to a user; the user name is not presented. */
        TOKEN
    }

    public Credentials {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(kind, "kind");
        username = username == null ? "" : username;
        secret = secret == null ? "" : secret;
    }

    /** A user name and password. */
    public Credentials(final String protocol, final String username, final String secret, final SocketAddress remote) {
        this(protocol, Kind.PASSWORD, username, secret, remote);
    }

    /** A client that presented nothing. */
    public static Credentials anonymous(final String protocol, final SocketAddress remote) {
        return new Credentials(protocol, "", "", remote);
    }

    /** A bearer token. */
    public static Credentials token(final String protocol, final String token, final SocketAddress remote) {
        return new Credentials(protocol, Kind.TOKEN, "", token, remote);
    }

    /** Whether a user name was presented. */
    public boolean hasUsername() {
        return !username.isEmpty();
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "Credentials[protocol=" + protocol + ", kind=" + kind + ", username=" + username + ", remote=" + remote
                + "]";
    }
}
