package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/** Writes a {@link RemotingCommand} as a frame; a {@link ByteBuf} payload goes out as is, without copying. */
@ChannelHandler.Sharable
public final class RemotingEncoder extends MessageToMessageEncoder<RemotingCommand> {
    public static final RemotingEncoder INSTANCE = new RemotingEncoder();

    private RemotingEncoder() {
    }

    @Override
    protected void encode(final ChannelHandlerContext ctx, final RemotingCommand cmd, final List<Object> out) {
        final ByteBuf payload = cmd.payload();
        try {
            final byte[] header = HeaderCodec.encode(cmd);
            final int bodyLength = cmd.bodyLength();
            final ByteBuf head = ctx.alloc().buffer(8 + header.length + (payload == null ? bodyLength : 0));
            head.writeInt(4 + header.length + bodyLength);
            head.writeInt((cmd.serializeType().code() << 24) | header.length);
            head.writeBytes(header);
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
    public static ByteBuf encodeToBuffer(final io.netty.buffer.ByteBufAllocator alloc, final RemotingCommand cmd) {
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
