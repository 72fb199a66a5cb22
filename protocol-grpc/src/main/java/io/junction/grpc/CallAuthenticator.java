package io.junction.grpc;

import apache.rocketmq.v2.Code;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.AuthResult;
import io.junction.tenancy.Principal;
import io.junction.tenancy.SignedRequest;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * Security on: every call, unary or stream, must carry a valid signed {@code authorization} header (its own, not
 * its connection's), and each request message it sends is then held to {@link RpcPermissions} by an
 * {@link AuthorizingListener}. Installed only when the broker's access control is enabled, so an open broker does no
 * signature work at all.
 *
 * <p>A refusal is the response the method would give, with status UNAUTHORIZED (credentials) or FORBIDDEN
 * (permissions): see {@link RefusalResponses}. The reason the policy refused a credential is logged by the policy, not
 * told to the client.
 *
 * <p>Runs on the connection's Netty event loop (the server runs calls on a direct executor), so it must not wait: the
 * policy works from memory and an HMAC-SHA1 is microseconds, and {@link ConnectionAuth} spares most of those.
 */
final class CallAuthenticator implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> DATE_TIME =
            Metadata.Key.of(AuthorizationHeader.SIGNED_HEADER, Metadata.ASCII_STRING_MARSHALLER);

    private final AccessControl access;
    private final Clock clock;
    private final LongSupplier nanoTime;

    CallAuthenticator(final AccessControl access) {
        this(access, Clock.systemUTC(), System::nanoTime);
    }

    CallAuthenticator(final AccessControl access, final Clock clock, final LongSupplier nanoTime) {
        this.access = access;
        this.clock = clock;
        this.nanoTime = nanoTime;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(final ServerCall<Q, R> call, final Metadata headers,
                                                       final ServerCallHandler<Q, R> next) {
        final ConnectionAuth connection = call.getAttributes().get(ConnectionAuth.KEY);
        final AuthResult result = authenticate(headers, call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
                connection);
        if (!result.authenticated()) {
            RefusableCall.refuse(call, false, RefusalResponses.of(call.getMethodDescriptor(), Code.UNAUTHORIZED,
                    clientMessage(result.failureReason().orElse(""))));
            return new ServerCall.Listener<>() {
            };
        }
        final Principal principal = result.principal().orElseThrow();
        if (connection != null && !connection.count(access, principal)) {
            RefusableCall.refuse(call, false, RefusalResponses.of(call.getMethodDescriptor(), Code.TOO_MANY_REQUESTS,
                    "the namespace has its maximum number of connections open"));
            return new ServerCall.Listener<>() {
            };
        }
        // Client ids are chosen by clients: scoped by user, one tenant's client can never take over another's session
        // (its Telemetry stream, transaction check-backs, held messages) by sending the same id.
        final String clientId = ClientMetadata.clientId();
        final CallAccess callAccess = new CallAccess(access, principal);
        final Context scoped = Context.current().withValue(ClientMetadata.CLIENT_ID_KEY,
                clientId.isEmpty() ? "" : principal.name() + '/' + clientId).withValue(CallAccess.KEY, callAccess);
        final RefusableCall<Q, R> refusable = new RefusableCall<>(call);
        return new AuthorizingListener<>(Contexts.interceptCall(scoped, refusable, headers, next), refusable, access,
                principal, connection, callAccess);
    }

    /** The caller's principal, or why there is none. */
    AuthResult authenticate(final Metadata headers, final SocketAddress remote, final ConnectionAuth connection) {
        final String authorization = headers.get(AUTHORIZATION);
        if (authorization == null) {
            access.verify(unsigned(remote)); // audited like every refusal
            return AuthResult.failure("no-credentials");
        }
        final AuthorizationHeader header = AuthorizationHeader.parse(authorization);
        if (header == null) {
            access.verify(unsigned(remote));
            return AuthResult.failure("malformed-authorization");
        }
        final String dateTime = headers.get(DATE_TIME);
        final Instant signedAt = SigningTime.of(dateTime, clock.instant());
        if (signedAt == null) {
            return AuthResult.failure("malformed-date");
        }
        final long now = nanoTime.getAsLong();
        final long version = access.policyVersion(); // a verification is reused only while no user changed
        if (connection != null) {
            final Principal known = connection.reuse(header.accessKey(), dateTime, header.signature(), now,
                    version);
            if (known != null) {
                return AuthResult.success(known);
            }
        }
        final AuthResult result = access.verify(new SignedRequest(GrpcSettings.NAME, header.accessKey(),
                dateTime.getBytes(StandardCharsets.US_ASCII), header.signature(), SignedRequest.Encoding.HEX, signedAt,
                remote));
        if (result.authenticated() && connection != null) {
            connection.verified(header.accessKey(), dateTime, header.signature(), result.principal().orElseThrow(),
                    now, version);
        }
        return result;
    }

    private static SignedRequest unsigned(final SocketAddress remote) {
        return new SignedRequest(GrpcSettings.NAME, "", new byte[0], "", SignedRequest.Encoding.HEX, null, remote);
    }

    /** What the client is told: how its own headers are wrong, but never why the policy refused its credentials. */
    private static String clientMessage(final String reason) {
        return switch (reason) {
            case "no-credentials" -> "authentication required: the authorization header is missing";
            case "malformed-authorization" -> "the authorization header is not " + AuthorizationHeader.ALGORITHM
                    + " Credential=..., SignedHeaders=" + AuthorizationHeader.SIGNED_HEADER + ", Signature=...";
            case "malformed-date" -> "the " + AuthorizationHeader.SIGNED_HEADER + " header is missing or malformed";
            default -> "authentication failed";
        };
    }
}
