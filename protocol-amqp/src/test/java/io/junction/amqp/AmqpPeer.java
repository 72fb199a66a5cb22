package io.junction.amqp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;

/**
 * The client end of a test connection: splits what the broker sends into protocol headers and frames and queues the
 * decoded performatives (SASL and AMQP alike; payloads and empty frames are skipped) for the test to wait on. Runs on
 * the channel's event loop; at most {@value #KEEP} performatives are kept, the rest of a chatty answer is dropped.
 */
final class AmqpPeer extends ChannelInboundHandlerAdapter {
    private static final int KEEP = 256;
    private static final int MAX_FRAME = 16 << 20;

    private final DecoderImpl decoder = new DecoderImpl();
    private final BlockingQueue<Object> performatives = new LinkedBlockingQueue<>(KEEP);
    private ByteBuf pending = Unpooled.buffer();
    private boolean unreadable;

    AmqpPeer() {
        AMQPDefinedTypes.registerAllTypes(decoder, new EncoderImpl(decoder));
    }

    /** The next performative of {@code type} (earlier ones of other types are passed over), or null in time. */
    <T> T await(final Class<T> type, final long seconds) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            final Object next = performatives.poll(left, TimeUnit.NANOSECONDS);
            if (type.isInstance(next)) {
                return type.cast(next);
            }
        }
        return null;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf in = (ByteBuf) msg;
        try {
            if (!unreadable && pending != null) {
                pending.writeBytes(in);
                split();
            }
        } finally {
            in.release();
        }
    }

    @Override
    public void handlerRemoved(final ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }

    private void split() {
        while (pending.readableBytes() >= 8) {
            final int start = pending.readerIndex();
            if (pending.getInt(start) == 0x414D5150) { // "AMQP": a protocol header
                pending.skipBytes(8);
                continue;
            }
            final int size = pending.getInt(start);
            if (size < 8 || size > MAX_FRAME) {
                unreadable = true; // not a frame stream; the test only waits for what it expects
                return;
            }
            if (pending.readableBytes() < size) {
                break;
            }
            final int bodyStart = (pending.getByte(start + 4) & 0xFF) * 4;
            if (bodyStart < 8 || bodyStart > size) {
                unreadable = true;
                return;
            }
            if (bodyStart < size) {
                final ByteBuffer body = pending.nioBuffer(start + bodyStart, size - bodyStart);
                try {
                    decoder.setByteBuffer(body);
                    performatives.offer(decoder.readObject());
                } catch (DecodeException e) {
                    unreadable = true;
                    return;
                } finally {
                    decoder.setByteBuffer(null);
                }
            }
            pending.skipBytes(size);
        }
        pending.discardReadBytes();
    }
}
