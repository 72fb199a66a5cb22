package io.junction.cluster.contract;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection to a {@link ContractServer}: the calls waiting for their answers by request id. An answer
 * completes its call; a connection that ends fails every call still waiting with {@code StoreError.UNAVAILABLE}.
 */
final class ContractConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ContractConnection.class);

    /**
     * A call waiting for its answer. {@code unclaimed} (or null) takes an answer that arrives after the caller
     * cancelled: one that hands over something the server gave out (a pop's messages) must give it back.
     */
    record Waiting<T>(CompletableFuture<T> result, Function<ByteBuf, T> reader, Consumer<T> unclaimed) {
        void answer(final ByteBuf in) {
            final T value;
            try {
                value = reader.apply(in);
            } catch (RuntimeException e) {
                result.completeExceptionally(new StoreException(StoreError.UNAVAILABLE,
                        "the contract server's answer does not decode: " + e.getMessage(), e));
                return;
            }
            if (!result.complete(value) && unclaimed != null) {
                unclaimed.accept(value);
            }
        }
    }

    private final Map<Long, Waiting<?>> waiting = new ConcurrentHashMap<>();
    private volatile Channel channel;
    private volatile boolean closed;

    void attach(final Channel channel) {
        this.channel = channel;
    }

    Channel channel() {
        return channel;
    }

    boolean usable() {
        final Channel ch = channel;
        return !closed && ch != null && ch.isActive();
    }

    /** Registers a call; false when the connection already ended (the caller fails it). */
    boolean register(final long id, final Waiting<?> call) {
        waiting.put(id, call);
        if (closed) {
            waiting.remove(id);
            return false;
        }
        return true;
    }

    /** Forgets a call (cancelled or timed out); true when it was still waiting. */
    boolean forget(final long id) {
        return waiting.remove(id) != null;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            if (frame.readableBytes() < ContractFrame.HEADER_AFTER_LENGTH) {
                throw new MalformedFrameException("a frame shorter than its header");
            }
            final long id = frame.readLong();
            final byte kind = frame.readByte();
            final Waiting<?> call = waiting.remove(id);
            if (call == null) {
                return; // Cancelled or timed out meanwhile.
            }
            if (kind == ContractFrame.RESULT) {
                call.answer(frame);
            } else if (kind == ContractFrame.ERROR) {
                final StoreError error = ContractCodec.readErrorKind(frame);
                call.result().completeExceptionally(new StoreException(error, WireFormat.readString(frame)));
            } else {
                call.result().completeExceptionally(new StoreException(StoreError.UNAVAILABLE,
                        "the contract server answered with kind " + kind));
                throw new MalformedFrameException("unknown answer kind " + kind);
            }
        } catch (MalformedFrameException e) {
            LOG.warn("Closing contract connection to {}: {}", ctx.channel().remoteAddress(), e.getMessage());
            ctx.close();
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        end("the connection to the leader's contract server " + ctx.channel().remoteAddress() + " closed");
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        LOG.debug("Contract connection to {} failed", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }

    /** Ends the connection's calls: each fails with UNAVAILABLE (the front-ends answer a retriable error). */
    void end(final String why) {
        closed = true;
        for (Long id : waiting.keySet()) {
            final Waiting<?> call = waiting.remove(id);
            if (call != null) {
                call.result().completeExceptionally(new StoreException(StoreError.UNAVAILABLE, why));
            }
        }
    }
}
