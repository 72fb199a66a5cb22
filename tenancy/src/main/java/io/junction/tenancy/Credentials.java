package io.junction.tenancy;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * What a client presented when it connected, in a protocol-neutral form.
 *
 * <p>Each front-end maps its own mechanism here: MQTT CONNECT user name and password, AMQP SASL PLAIN, the Remoting and
 * gRPC access-key signature, an HTTP {@code Authorization} header. The secret is kept as text because every mechanism
 * above transports it as text.
 *
 * @param protocol the front-end's name (for policies and audit logs)
 * @param username the presented user name or access key; empty when none was presented
 * @param secret   the presented password, secret or signature; empty when none was presented
 * @param remote   the client's address
 */
public record Credentials(String protocol, String username, String secret, SocketAddress remote) {

    public Credentials {
        Objects.requireNonNull(protocol, "protocol");
        username = username == null ? "" : username;
        secret = secret == null ? "" : secret;
    }

    /** A client that presented nothing. */
    public static Credentials anonymous(final String protocol, final SocketAddress remote) {
        return new Credentials(protocol, "", "", remote);
    }

    /** Whether a user name was presented. */
    public boolean hasUsername() {
        return !username.isEmpty();
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "Credentials[protocol=" + protocol + ", username=" + username + ", remote=" + remote + "]";
    }
}
