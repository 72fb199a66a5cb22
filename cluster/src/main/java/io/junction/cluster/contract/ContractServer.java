package io.junction.cluster.contract;

import io.junction.core.Messaging;
import io.junction.core.txn.TransactionChecker;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a node's local {@link Messaging} to its peers over TCP, in {@link ContractFrame}s: each connection gets a
 * frame decoder with a hard length limit (the largest message plus {@link ContractFrame#SLACK}) and a
 * {@link ContractServerHandler} that calls the store and answers when its future completes, never waiting on the
 * event loop.
 */
public final class ContractServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ContractServer.class);
    /** Requests a connection may have waiting before the server stops reading it. */
    static final int MAX_IN_FLIGHT = 512;
    /** A standalone server's: no front-end of its own to hand check-backs to. */
    private static final TransactionChecker NO_PRODUCERS = (group, half, times) -> { };

    private final EventLoopGroup group;
    private final Channel channel;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** The peers' connections: closed explicitly at close, so their calls fail at once rather than at shutdown. */
    private final ChannelGroup connections;

    private ContractServer(final EventLoopGroup group, final Channel channel, final ChannelGroup connections) {
        this.group = group;
        this.channel = channel;
        this.connections = connections;
    }

    /**
     * Binds the listener.
     *
     * @param target         the store of the moment (it changes when the node's role does)
     * @param maxMessageSize the store's largest message body: frames may be that plus slack
     * @throws IllegalStateException when the port cannot be bound
     */
    public static ContractServer start(final String host, final int port, final Supplier<? extends Messaging> target,
                                       final int maxMessageSize) {
        return start(host, port, target, StandaloneView.of(target), NO_PRODUCERS, maxMessageSize, MAX_IN_FLIGHT);
    }

    /**
     * Binds the listener of a store group's member.
     *
     * @param view           the group's topology and the store's tables, as this node knows them
     * @param localProducers where transaction check-backs the leader hands over ({@link TransactionCheckSender}) go:
     *                       this node's front-ends, which ask their connected producers
     */
    public static ContractServer start(final String host, final int port, final Supplier<? extends Messaging> target,
                                       final StoreNodeView view, final TransactionChecker localProducers,
                                       final int maxMessageSize) {
        return start(host, port, target, view, localProducers, maxMessageSize, MAX_IN_FLIGHT);
    }

    /** {@link #start(String, int, Supplier, int)} with another in-flight bound per connection (tests). */
    static ContractServer start(final String host, final int port, final Supplier<? extends Messaging> target,
                                final int maxMessageSize, final int maxInFlight) {
        return start(host, port, target, StandaloneView.of(target), NO_PRODUCERS, maxMessageSize, maxInFlight);
    }

    private static ContractServer start(final String host, final int port, final Supplier<? extends Messaging> target,
                                        final StoreNodeView view, final TransactionChecker localProducers,
                                        final int maxMessageSize, final int maxInFlight) {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, r -> {
            final Thread t = new Thread(r, "junction-contract-server");
            t.setDaemon(true);
            return t;
        }, NioIoHandler.newFactory());
        final int maxFrame = ContractFrame.maxFrameLength(maxMessageSize);
        final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        try {
            final Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            connections.add(ch);
                            ch.pipeline().addLast(
                                    new LengthFieldBasedFrameDecoder(maxFrame, ContractFrame.LENGTH_OFFSET,
                                            ContractFrame.LENGTH_FIELD, 0, ContractFrame.LENGTH_FIELD),
                                    new ContractServerHandler(target, view, localProducers, maxInFlight));
                        }
                    })
                    .bind(host, port).syncUninterruptibly().channel();
            LOG.info("Contract server on {}", channel.localAddress());
            if (view instanceof StandaloneView standalone) {
                standalone.bound((InetSocketAddress) channel.localAddress());
            }
            return new ContractServer(group, channel, connections);
        } catch (Exception e) {
            // Exception, not RuntimeException: syncUninterruptibly() rethrows the bind's checked BindException as is.
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot bind the contract server on " + host + ":" + port + ": "
                    + e.getMessage(), e);
        }
    }

    /** Where it listens (the bound port when 0 was asked). */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops listening and closes every connection (their waiting requests are dropped); idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        channel.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
