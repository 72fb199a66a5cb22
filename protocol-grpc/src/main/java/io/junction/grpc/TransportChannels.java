package io.junction.grpc;

import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open connections (HTTP/2 transports) by the client's address, so an administrator can close one: gRPC has no
 * server API that closes a given client's transport. Wraps the listener's protocol negotiator (TLS, plaintext, or
 * both on one port): its handler notes the channel when the transport starts, then steps aside for the wrapped one.
 */
final class TransportChannels implements InternalProtocolNegotiator.ProtocolNegotiator {
    private final InternalProtocolNegotiator.ProtocolNegotiator negotiator;
    private final Map<SocketAddress, Channel> open = new ConcurrentHashMap<>();

    TransportChannels(final InternalProtocolNegotiator.ProtocolNegotiator negotiator) {
        this.negotiator = negotiator;
    }

    /** Closes the connection from {@code remote}, if one is open; any thread. */
    void close(final SocketAddress remote) {
        final Channel c = remote == null ? null : open.get(remote);
        if (c != null) {
            c.close();
        }
    }

    @Override
    public AsciiString scheme() {
        return negotiator.scheme();
    }

    @Override
    public ChannelHandler newHandler(final GrpcHttp2ConnectionHandler grpcHandler) {
        final ChannelHandler next = negotiator.newHandler(grpcHandler);
        return new ChannelHandlerAdapter() {
            @Override
            public void handlerAdded(final ChannelHandlerContext ctx) {
                final Channel channel = ctx.channel();
                final SocketAddress remote = channel.remoteAddress();
                if (remote != null) {
                    open.put(remote, channel);
                    channel.closeFuture().addListener(f -> open.remove(remote, channel));
                }
                // Before the transport fires its negotiation event: the wrapped handler takes this one's place.
                ctx.pipeline().addAfter(ctx.name(), null, next);
                ctx.pipeline().remove(this);
            }
        };
    }

    @Override
    public void close() {
        negotiator.close();
    }
}
