package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/** Writes a {@link RemotingCommand} as a frame; a {@link ByteBuf} payload goes out as is, without copying. */
@ChannelHandler.Sharable
public final class RemotingEncoder extends MessageToMessageEncoder<RemotingCommand> {
    public static final RemotingEncoder INSTANCE = new RemotingEncoder();
    /** Room for a typical header: the buffer grows when a header is longer. */
    private static final int HEADER_ESTIMATE = 8 + 256;

    private RemotingEncoder() {
    }

    @Override
    protected void encode(final ChannelHandlerContext ctx, final RemotingCommand cmd, final List<Object> out) {
        final ByteBuf payload = cmd.payload();
        try {
            final int bodyLength = cmd.bodyLength();
            final ByteBuf head = ctx.alloc().buffer(HEADER_ESTIMATE + (payload == null ? bodyLength : 0));
            // The header goes straight into the buffer; the two length words are filled in once its length is known.
            head.writeLong(0);
            final int headerLength;
            try {
                headerLength = HeaderCodec.write(cmd, head);
            } catch (RuntimeException e) {
                head.release();
                throw e;
            }
            head.setInt(0, 4 + headerLength + bodyLength);
            head.setInt(4, (cmd.serializeType().code() << 24) | headerLength);
            if (payload == null) {
                if (cmd.body() != null) {
                    head.writeBytes(cmd.body());
                }
                out.add(head);
            } else {
                out.add(ctx.alloc().compositeBuffer(2).addComponent(true, head).addComponent(true, payload));
                cmd.payload(null);
            }
        } catch (RuntimeException e) {
            if (payload != null && cmd.payload() != null) {
                payload.release();
                cmd.payload(null);
            }
            throw e;
        }
    }

    /** Encodes into one buffer (tests, raw clients). */
    public static ByteBuf encodeToBuffer(final ByteBufAllocator alloc, final RemotingCommand cmd) {
        final byte[] header = HeaderCodec.encode(cmd);
        final ByteBuf buf = alloc.buffer();
        buf.writeInt(4 + header.length + cmd.bodyLength());
        buf.writeInt((cmd.serializeType().code() << 24) | header.length);
        buf.writeBytes(header);
        if (cmd.payload() != null) {
            buf.writeBytes(cmd.payload(), cmd.payload().readerIndex(), cmd.payload().readableBytes());
        } else if (cmd.body() != null) {
            buf.writeBytes(cmd.body());
        }
        return buf;
    }
}
