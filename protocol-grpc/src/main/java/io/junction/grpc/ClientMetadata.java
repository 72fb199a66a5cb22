package io.junction.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The request metadata the 5.x clients send (rocketmq-wire.md §4.5), put into the gRPC {@link Context} of each call:
 * the client id ties a client's calls to its Telemetry session.
 */
final class ClientMetadata implements ServerInterceptor {
    static final Metadata.Key<String> CLIENT_ID = Metadata.Key.of("x-mq-client-id", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> NAMESPACE = Metadata.Key.of("x-mq-namespace", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> LANGUAGE = Metadata.Key.of("x-mq-language", Metadata.ASCII_STRING_MARSHALLER);

    static final Context.Key<String> CLIENT_ID_KEY = Context.key("x-mq-client-id");
    static final Context.Key<InetSocketAddress> REMOTE_KEY = Context.key("rpc-remote-address");

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(final ServerCall<Q, R> call, final Metadata headers,
                                                       final ServerCallHandler<Q, R> next) {
        final String clientId = headers.get(CLIENT_ID);
        final SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        Context ctx = Context.current().withValue(CLIENT_ID_KEY, clientId == null ? "" : clientId);
        if (remote instanceof InetSocketAddress inet) {
            ctx = ctx.withValue(REMOTE_KEY, inet);
        }
        return Contexts.interceptCall(ctx, call, headers, next);
    }

    /** The calling client's id, empty when it sent none. */
    static String clientId() {
        final String id = CLIENT_ID_KEY.get();
        return id == null ? "" : id;
    }

    /** The calling client's address, or null. */
    static InetSocketAddress remote() {
        return REMOTE_KEY.get();
    }
}
