package io.junction.kafka;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Credentials;
import io.junction.tenancy.Principal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;

/**
 * SASL/PLAIN as kafka-clients 4.x speaks it: a SaslHandshake (v1) naming the mechanism, then the PLAIN token
 * ({@code authzid NUL user NUL password}, RFC 4616) inside one SaslAuthenticate request. The user name and password
 * are checked by tenancy ({@link AccessControl#authenticate}), against the same users as every other protocol; the
 * accepted principal's namespace and ACL then apply to every request of the connection ({@link ClientScope}).
 *
 * <p>A refusal is answered with SASL_AUTHENTICATION_FAILED (the client raises SaslAuthenticationException) and the
 * connection is closed once the answer is out. Sessions do not expire (session lifetime 0: no re-authentication).
 */
final class SaslApis {
    static final String PLAIN = "PLAIN";
    /** Longest PLAIN token accepted (authzid, user name and password). */
    private static final int MAX_TOKEN = 4096;

    private final AccessControl access;

    SaslApis(final AccessControl access) {
        this.access = access;
    }

    CompletableFuture<ApiMessage> handshake(final KafkaRequest request) {
        final SaslHandshakeRequestData data = ((SaslHandshakeRequest) request.body()).data();
        final SaslHandshakeResponseData r = new SaslHandshakeResponseData().setMechanisms(List.of(PLAIN));
        final KafkaConnection c = request.connection();
        if (c.saslState() != KafkaConnection.SaslState.NONE) {
            return done(r.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
        }
        if (request.version() < 1) {
            // v0 would send the token raw, outside a request: kafka-clients 1.0 and later never do.
            c.closeAfterAnswer();
            return done(r.setErrorCode(Errors.UNSUPPORTED_VERSION.code()));
        }
        if (!PLAIN.equals(data.mechanism())) {
            return done(r.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()));
        }
        c.saslState(KafkaConnection.SaslState.HANDSHAKE_DONE);
        return done(r);
    }

    CompletableFuture<ApiMessage> authenticate(final KafkaRequest request) {
        final SaslAuthenticateRequestData data = ((SaslAuthenticateRequest) request.body()).data();
        final KafkaConnection c = request.connection();
        if (c.saslState() != KafkaConnection.SaslState.HANDSHAKE_DONE) {
            c.closeAfterAnswer();
            return done(failure(Errors.ILLEGAL_SASL_STATE, "SaslAuthenticate before a SaslHandshake, or again"));
        }
        c.saslState(KafkaConnection.SaslState.AUTHENTICATING);
        final Credentials credentials = plain(data.authBytes(), c);
        if (credentials == null) {
            c.closeAfterAnswer();
            return done(failure(Errors.SASL_AUTHENTICATION_FAILED, "Authentication failed: malformed PLAIN token"));
        }
        return access.authenticate(credentials).exceptionally(e -> null).thenApplyAsync(result -> {
            final Principal principal = result == null || !result.authenticated() ? null
                    : result.principal().orElse(null);
            if (principal == null || !access.connectionOpened(principal)) {
                c.closeAfterAnswer();
                return failure(Errors.SASL_AUTHENTICATION_FAILED,
                        "Authentication failed: Invalid username or password");
            }
            c.authenticated(new ClientScope(access, principal));
            return new SaslAuthenticateResponseData().setAuthBytes(new byte[0]).setSessionLifetimeMs(0);
        }, c.executor());
    }

    private static SaslAuthenticateResponseData failure(final Errors error, final String message) {
        return new SaslAuthenticateResponseData().setErrorCode(error.code()).setErrorMessage(message)
                .setAuthBytes(new byte[0]);
    }

    /** PLAIN's token: [authzid] NUL authcid NUL password; null when malformed or acting for another user. */
    private static Credentials plain(final byte[] token, final KafkaConnection c) {
        if (token == null || token.length > MAX_TOKEN) {
            return null;
        }
        int first = -1;
        int second = -1;
        for (int i = 0; i < token.length; i++) {
            if (token[i] == 0) {
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
        final String authzid = new String(token, 0, first, StandardCharsets.UTF_8);
        final String user = new String(token, first + 1, second - first - 1, StandardCharsets.UTF_8);
        final String password = new String(token, second + 1, token.length - second - 1, StandardCharsets.UTF_8);
        if (user.isEmpty() || !authzid.isEmpty() && !authzid.equals(user)) {
            return null; // Kafka's PLAIN server refuses to act for another identity too
        }
        return new Credentials("kafka", user, password, c.remoteAddress());
    }

    private static CompletableFuture<ApiMessage> done(final ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
