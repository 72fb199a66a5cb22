package io.junction.broker.netty;

import io.junction.spi.EventLoops;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Owns the shared boss and worker groups: epoll when the native library loads, NIO otherwise. Thread counts stay small
 * (one acceptor; by default one I/O thread per core, at most four) because every listener of every front-end shares
 * them and the broker's work is dominated by the store, not by socket I/O.
 */
public final class NettyTransport implements EventLoops, AutoCloseable {

    /** Upper bound of the automatic I/O thread count. */
    private static final int MAX_AUTO_THREADS = 4;

    private final EventLoopGroup boss;
    private final EventLoopGroup worker;
    private final boolean epoll;

    private NettyTransport(final int ioThreads, final boolean epoll) {
        this.epoll = epoll;
        final IoHandlerFactory handlers = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("junction-accept"), handlers);
        this.worker = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory("junction-io"), handlers);
    }

    /** @param ioThreads worker threads, or 0 for one per core (at most four) */
    public static NettyTransport create(final int ioThreads) {
        final int threads = ioThreads > 0 ? ioThreads
                : Math.min(MAX_AUTO_THREADS, Runtime.getRuntime().availableProcessors());
        return new NettyTransport(threads, Epoll.isAvailable());
    }

    /**
     * Loads and initialises Netty's transport and HTTP classes (native library included) on a background thread, so
     * that work overlaps with configuration and the store's opening instead of following them: about a fifth of the
     * start-up time on a two-core machine. Creates nothing that needs closing.
     */
    public static void preloadInBackground() {
        final Thread preload = new Thread(() -> {
            if (Epoll.isAvailable()) {
                EpollIoHandler.newFactory();
            }
            new HttpServerCodec();
            new HttpObjectAggregator(1024);
            ByteBufAllocator.DEFAULT.buffer(16).release();
        }, "junction-preload");
        preload.setDaemon(true);
        preload.start();
    }

    /** "epoll" or "nio". */
    public String kind() {
        return epoll ? "epoll" : "nio";
    }

    @Override
    public EventLoopGroup boss() {
        return boss;
    }

    @Override
    public EventLoopGroup worker() {
        return worker;
    }

    @Override
    public Class<? extends ServerChannel> serverChannelType() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    @Override
    public Class<? extends Channel> socketChannelType() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** Closes every channel still open on the groups and stops their threads; waits a few seconds at most. */
    @Override
    public void close() {
        // No quiet period: by the time this runs the front-ends have stopped, so nothing new is being submitted.
        final Future<?> b = boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        final Future<?> w = worker.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        b.awaitUninterruptibly(5, TimeUnit.SECONDS);
        w.awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
