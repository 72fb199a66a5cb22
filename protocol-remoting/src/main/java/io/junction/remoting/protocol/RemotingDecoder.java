package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Frames ({@code int32 length | int32 headerInfo | header | body}) into {@link RemotingCommand}s.
 *
 * <p>A length above the maximum or below the smallest possible frame, an unknown serialize type or a header
 * longer than the frame is a broken stream: it throws, and the handler closes the connection. A header that frames
 * correctly but does not parse yields a command whose {@link RemotingCommand#code()} is {@link #MALFORMED} so the
 * handler can answer it when the opaque is known, or close.
 */
public final class RemotingDecoder extends LengthFieldBasedFrameDecoder {
    /** Pseudo code for a frame whose header could not be parsed. */
    public static final int MALFORMED = Integer.MIN_VALUE;

    public RemotingDecoder(final int maxFrameLength) {
        super(maxFrameLength, 0, 4, 0, 4, true);
    }

    @Override
    protected Object decode(final ChannelHandlerContext ctx, final ByteBuf in) throws Exception {
        if (in.readableBytes() >= 4) {
            final int length = in.getInt(in.readerIndex());
            if (length < 4) {
                throw new CorruptedFrameException("frame length " + length + " is below 4");
            }
        }
        final ByteBuf frame = (ByteBuf) super.decode(ctx, in);
        if (frame == null) {
            return null;
        }
        try {
            return decodeFrame(frame);
        } finally {
            frame.release();
        }
    }

    /** Decodes one frame without its length prefix. */
    static RemotingCommand decodeFrame(final ByteBuf frame) {
        final int headerInfo = frame.readInt();
        final SerializeType type = SerializeType.of((headerInfo >>> 24) & 0xFF);
        final int headerLength = headerInfo & 0xFFFFFF;
        if (type == null) {
            throw new CorruptedFrameException("unknown header serialize type " + ((headerInfo >>> 24) & 0xFF));
        }
        if (headerLength > frame.readableBytes()) {
            throw new CorruptedFrameException("header length " + headerLength + " exceeds the frame");
        }
        RemotingCommand cmd;
        try {
            cmd = HeaderCodec.decode(type, frame, headerLength);
        } catch (HeaderException | IndexOutOfBoundsException e) {
            cmd = new RemotingCommand().serializeType(type).code(MALFORMED).remark(e.getMessage());
            frame.readerIndex(frame.writerIndex());
            return cmd;
        }
        if (frame.isReadable()) {
            final byte[] body = new byte[frame.readableBytes()];
            frame.readBytes(body);
            cmd.body(body);
        }
        return cmd;
    }
}
