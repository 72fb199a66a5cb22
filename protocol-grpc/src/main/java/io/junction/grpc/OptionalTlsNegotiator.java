package io.junction.grpc;

import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.grpc.netty.ProtocolNegotiationEvent;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.handler.codec.ByteToMessageDecoder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslHandler;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import java.util.List;

/**
 * TLS and plaintext on one port, decided per connection: the first bytes a client sends are a TLS record (a
 * ClientHello) or the HTTP/2 preface. A {@link Detector} holds the transport's protocol-negotiation event until it
 * has seen them, then installs grpc's own TLS or plaintext negotiation handler after itself, hands it the event (the
 * TLS one adds its {@link SslHandler} synchronously) and removes itself, which passes the buffered bytes on.
 */
final class OptionalTlsNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {
    /** Bytes needed to tell a TLS record header from the HTTP/2 preface. */
    static final int DETECT_BYTES = 5;

    private final InternalProtocolNegotiator.ProtocolNegotiator tls;
    private final InternalProtocolNegotiator.ProtocolNegotiator plaintext;
    private final boolean plaintextAllowed;

    OptionalTlsNegotiator(final SslContext sslContext, final boolean plaintextAllowed) {
        this.tls = InternalProtocolNegotiators.serverTls(sslContext);
        this.plaintext = InternalProtocolNegotiators.serverPlaintext();
        this.plaintextAllowed = plaintextAllowed;
    }

    @Override
    public AsciiString scheme() {
        return AsciiString.of("https");
    }

    @Override
    public ChannelHandler newHandler(final GrpcHttp2ConnectionHandler grpcHandler) {
        return new Detector(grpcHandler);
    }

    @Override
    public void close() {
        tls.close();
        plaintext.close();
    }

    private final class Detector extends ByteToMessageDecoder {
        private final GrpcHttp2ConnectionHandler grpcHandler;
        private Object negotiationEvent;

        Detector(final GrpcHttp2ConnectionHandler grpcHandler) {
            this.grpcHandler = grpcHandler;
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) throws Exception {
            if (evt instanceof ProtocolNegotiationEvent && negotiationEvent == null) {
                negotiationEvent = evt; // released once the protocol is known
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
            if (in.readableBytes() < DETECT_BYTES || negotiationEvent == null) {
                return;
            }
            final boolean encrypted = SslHandler.isEncrypted(in, false);
            if (!encrypted && !plaintextAllowed) {
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            final ChannelHandler next = (encrypted ? tls : plaintext).newHandler(grpcHandler);
            ctx.pipeline().addAfter(ctx.name(), null, next);
            final Object event = negotiationEvent;
            negotiationEvent = null;
            ctx.fireUserEventTriggered(event);
            ctx.pipeline().remove(this);
        }
    }
}
