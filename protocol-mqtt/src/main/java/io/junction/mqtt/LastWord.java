package io.junction.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Ends a connection with a last packet (a refusing CONNACK or a DISCONNECT with its reason) that the client gets to
 * read.
 *
 * <p>Closing a TCP connection while the client's bytes are still unread makes the kernel answer with a reset, and a
 * reset throws away what the client had not read yet: a client still writing (the usual case when it is being
 * disconnected for sending too much) would never see why. So the broker stops decoding and discards whatever still
 * arrives (nothing is processed, nothing accumulates), flushes the last packet, half-closes its side, and closes
 * once the client has closed too or {@link #GRACE_MS} has passed.
 */
final class LastWord {
    /** How long a client gets to read the last packet and close; a client that never does is dropped then. */
    static final long GRACE_MS = 2_000;
    private static final String DECODER = "mqtt-decoder";

    private LastWord() {
    }

    /** Writes {@code packet} as the connection's last and closes as described above. Call on the event loop. */
    static void say(final Channel channel, final Object packet) {
        if (channel.pipeline().get(DECODER) != null) {
            channel.pipeline().addBefore(DECODER, "discard-input", DiscardInput.INSTANCE);
        }
        channel.writeAndFlush(packet).addListener(written -> {
            if (!written.isSuccess() || !(channel instanceof DuplexChannel duplex)) {
                channel.close();
                return;
            }
            final SslHandler tls = channel.pipeline().get(SslHandler.class);
            if (tls != null) {
                tls.closeOutbound(); // close_notify first, so the client's TLS sees an orderly end of our data
            } else {
                duplex.shutdownOutput();
            }
            channel.eventLoop().schedule(() -> channel.close(), GRACE_MS, TimeUnit.MILLISECONDS);
        });
    }

    /** Drops every inbound buffer: the connection is ending and nothing more is decoded. */
    @ChannelHandler.Sharable
    private static final class DiscardInput extends ChannelInboundHandlerAdapter {
        static final DiscardInput INSTANCE = new DiscardInput();

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            if (msg instanceof ByteBuf) {
                ReferenceCountUtil.release(msg);
            } else {
                ctx.fireChannelRead(msg);
            }
        }
    }
}
