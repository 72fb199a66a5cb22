package io.junction.cluster.contract;

import io.junction.core.message.StoredMessage;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the leader's transaction check-backs to another member's {@link ContractServer}, whose front-ends ask the
 * producers connected to them ({@link TransactionCheckFrame}). Fire and forget: a check that cannot be delivered (the
 * member is down, or does not keep up) is dropped, since the leader checks an unresolved half message again after its
 * check interval. One connection, opened on the first check and again on the first check after it is lost; checks
 * made while it opens are written once it is open. Never blocks the caller (the store's check thread).
 */
public final class TransactionCheckSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCheckSender.class);
    private static final int CONNECT_TIMEOUT_MILLIS = 3000;

    private final EventLoopGroup group;
    private final InetSocketAddress address;
    private final Object lock = new Object();
    /** The connection in use or being opened; replaced when it is lost. */
    private ChannelFuture connection;
    private boolean closed;

    public TransactionCheckSender(final EventLoopGroup group, final InetSocketAddress address) {
        this.group = group;
        this.address = address;
    }

    public InetSocketAddress address() {
        return address;
    }

    /** Sends one check-back (once the connection is open); dropped when the member cannot take it. */
    public void send(final String producerGroup, final StoredMessage half, final int checkTimes) {
        final ChannelFuture open;
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (connection == null || (connection.isDone() && !connection.channel().isActive())) {
                connection = connect();
            }
            open = connection;
        }
        open.addListener(f -> {
            final Channel channel = open.channel();
            if (!f.isSuccess() || !channel.isActive()) {
                return; // Logged by connect; the leader checks again after its check interval.
            }
            if (!channel.isWritable()) {
                LOG.debug("Member {} does not keep up; check-back of {} dropped", address, half.uniqueId());
                return;
            }
            final ByteBuf frame = channel.alloc().buffer();
            try {
                TransactionCheckFrame.write(frame, producerGroup, half, checkTimes);
            } catch (RuntimeException e) {
                frame.release();
                LOG.warn("Cannot encode the check-back of half message {}", half.uniqueId(), e);
                return;
            }
            channel.writeAndFlush(frame, channel.voidPromise());
        });
    }

    private ChannelFuture connect() {
        return new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
                        // Check-backs have no answer; a server never sends anything on this connection.
                        ReferenceCountUtil.release(msg);
                    }

                    @Override
                    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
                        LOG.debug("Check-back connection to {} failed", address, cause);
                        ctx.close();
                    }
                })
                .connect(address)
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        LOG.debug("Cannot reach member {} for check-backs: {}", address, f.cause().getMessage());
                    }
                });
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (connection != null) {
                connection.channel().close();
            }
        }
    }
}
