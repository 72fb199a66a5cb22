package io.junction.amqp;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Credentials;
import io.junction.tenancy.Principal;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.engine.Sasl;

/**
 * The server side of the SASL layer: offers PLAIN and ANONYMOUS, and hands the presented credentials to tenancy
 * ({@link AccessControl#authenticate}). A client may also skip SASL (send the plain AMQP header); it is then
 * authenticated as anonymous when it opens. Runs on the connection's event loop.
 */
final class SaslServer {
    static final String PLAIN = "PLAIN";
    static final String ANONYMOUS = "ANONYMOUS";
    /** Longest initial response accepted (authzid, user name and password of PLAIN). */
    private static final int MAX_RESPONSE = 4096;

    private final Sasl sasl;
    private final AccessControl accessControl;
    private final SocketAddress remote;
    private boolean started;

    SaslServer(final Sasl sasl, final AccessControl accessControl, final SocketAddress remote) {
        this.sasl = sasl;
        this.accessControl = accessControl;
        this.remote = remote;
        sasl.server();
        if (accessControl.enabled()) {
            sasl.setMechanisms(PLAIN); // security on: no anonymous way in, and SASL may not be skipped
            sasl.allowSkip(false);
        } else {
            sasl.setMechanisms(PLAIN, ANONYMOUS);
            sasl.allowSkip(true);
        }
    }

    /**
     * Starts authenticating once the client's sasl-init has arrived (call after each input); null until then and
     * after it started. The future's result is the principal, or null when the credentials were refused.
     */
    CompletableFuture<Principal> poll() {
        if (started) {
            return null;
        }
        final String[] mechanisms = sasl.getRemoteMechanisms();
        if (mechanisms == null || mechanisms.length == 0) {
            return null;
        }
        started = true;
        final int pending = sasl.pending();
        if (pending > MAX_RESPONSE) {
            return CompletableFuture.completedFuture(null);
        }
        final byte[] response = new byte[Math.max(0, pending)];
        if (pending > 0) {
            sasl.recv(response, 0, pending);
        }
        final Credentials credentials;
        switch (mechanisms[0]) {
            case ANONYMOUS -> credentials = Credentials.anonymous("amqp", remote);
            case PLAIN -> {
                credentials = plain(response);
                if (credentials == null) {
                    return CompletableFuture.completedFuture(null);
                }
            }
            default -> {
                return CompletableFuture.completedFuture(null);
            }
        }
        return authenticate(credentials);
    }

    /** Authenticates a client that skipped SASL, as anonymous. */
    CompletableFuture<Principal> skipped() {
        started = true;
        return authenticate(Credentials.anonymous("amqp", remote));
    }

    /** Whether SASL ran (or was skipped) and its result is known to the transport. */
    boolean outcomeSent() {
        return sasl.getOutcome() != Sasl.SaslOutcome.PN_SASL_NONE;
    }

    /** Tells the client the outcome. */
    void done(final boolean ok) {
        sasl.done(ok ? Sasl.SaslOutcome.PN_SASL_OK : Sasl.SaslOutcome.PN_SASL_AUTH);
    }

    private CompletableFuture<Principal> authenticate(final Credentials credentials) {
        return accessControl.authenticate(credentials)
                .thenApply(r -> r != null && r.authenticated() ? r.principal().orElse(Principal.ANONYMOUS) : null)
                .exceptionally(e -> null);
    }

    /** PLAIN's initial response: [authzid] NUL authcid NUL password (RFC 4616); null when malformed. */
    private Credentials plain(final byte[] response) {
        int first = -1;
        int second = -1;
        for (int i = 0; i < response.length; i++) {
            if (response[i] == 0) {
                if (first < 0) {
                    first = i;
                } else if (second < 0) {
                    second = i;
                } else {
                    return null;
                }
            }
        }
        if (first < 0 || second < 0) {
            return null;
        }
        final String user = new String(response, first + 1, second - first - 1, StandardCharsets.UTF_8);
        final String password = new String(response, second + 1, response.length - second - 1,
                StandardCharsets.UTF_8);
        return new Credentials("amqp", user, password, remote);
    }
}
