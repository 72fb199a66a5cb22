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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * TLS and plaintext on one port, decided per connection: the first bytes a client sends are a TLS record (a
 * ClientHello) or the HTTP/2 preface. A {@link Detector} holds the transport's protocol-negotiation event until it
 * has seen them, then installs grpc's own TLS or plaintext negotiation handler after itself, hands it the event (the
 * TLS one adds its {@link SslHandler} synchronously) and removes itself, which passes the buffered bytes on. When
 * the TLS context is still being set up (the first TLS client after start), the detector keeps buffering and
 * finishes on the channel's event loop once it is ready.
 */
final class OptionalTlsNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {
    /** Bytes needed to tell a TLS record header from the HTTP/2 preface. */
    static final int DETECT_BYTES = 5;

    private final TlsContextSource tlsContexts;
    private final AtomicReference<InternalProtocolNegotiator.ProtocolNegotiator> tls = new AtomicReference<>();
    private final InternalProtocolNegotiator.ProtocolNegotiator plaintext;
    private final boolean plaintextAllowed;

    OptionalTlsNegotiator(final TlsContextSource tlsContexts, final boolean plaintextAllowed) {
        this.tlsContexts = tlsContexts;
        this.plaintext = InternalProtocolNegotiators.serverPlaintext();
        this.plaintextAllowed = plaintextAllowed;
    }

    /** grpc's TLS negotiator over the (one) context, made once it exists. */
    private InternalProtocolNegotiator.ProtocolNegotiator tls(final SslContext context) {
        final InternalProtocolNegotiator.ProtocolNegotiator made = tls.get();
        if (made != null) {
            return made;
        }
        tls.compareAndSet(null, InternalProtocolNegotiators.serverTls(context));
        return tls.get();
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
        final InternalProtocolNegotiator.ProtocolNegotiator made = tls.get();
        if (made != null) {
            made.close();
        }
        plaintext.close();
    }

    private final class Detector extends ByteToMessageDecoder {
        private final GrpcHttp2ConnectionHandler grpcHandler;
        private Object negotiationEvent;
        private boolean waitingForContext;

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
            if (in.readableBytes() < DETECT_BYTES || negotiationEvent == null || waitingForContext) {
                return;
            }
            final boolean encrypted = SslHandler.isEncrypted(in, false);
            if (!encrypted) {
                if (!plaintextAllowed) {
                    in.skipBytes(in.readableBytes());
                    ctx.close();
                    return;
                }
                handOver(ctx, plaintext);
                return;
            }
            final CompletableFuture<SslContext> context = tlsContexts.get();
            if (context.isDone() && !context.isCompletedExceptionally()) {
                handOver(ctx, tls(context.join()));
                return;
            }
            // The bytes stay in this decoder's buffer (a ClientHello is small) until the context exists.
            waitingForContext = true;
            context.whenComplete((sslContext, failure) -> ctx.channel().eventLoop().execute(() -> {
                if (ctx.isRemoved()) {
                    return; // the client went away meanwhile
                }
                if (failure != null) {
                    ctx.close();
                } else {
                    handOver(ctx, tls(sslContext));
                }
            }));
        }

        private void handOver(final ChannelHandlerContext ctx,
                              final InternalProtocolNegotiator.ProtocolNegotiator negotiator) {
            ctx.pipeline().addAfter(ctx.name(), null, negotiator.newHandler(grpcHandler));
            final Object event = negotiationEvent;
            negotiationEvent = null;
            ctx.fireUserEventTriggered(event);
            ctx.pipeline().remove(this);
        }
    }
}
