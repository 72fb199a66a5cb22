package io.junction.spi.kit;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.tls.ServerTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A front-end's TCP listeners on the shared event loops: its plain port and, when {@code <name>.tls-enabled}, its TLS
 * port; every accepted connection counted, wrapped in TLS on the TLS port, then given the protocol's handlers; and a
 * stop in two steps, so a front-end can say goodbye to its clients in between: stop accepting, then close what is
 * still open.
 */
public final class NettyListener {
    private final BrokerContext context;
    private final WriteBufferWaterMark waterMark;
    private final List<Channel> listeners = new CopyOnWriteArrayList<>();
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    /** @param waterMark per connection: above its high mark a connection stops being written to until it drains */
    public NettyListener(final BrokerContext context, final WriteBufferWaterMark waterMark) {
        this.context = context;
        this.waterMark = waterMark;
    }

    /**
     * The front-end's TLS context when its TLS listener is enabled, else null; a certificate that cannot be read
     * fails with a message naming the protocol.
     */
    public static SslContext tls(final BrokerContext context, final String protocol) {
        if (!ServerTls.enabled(context.config())) {
            return null;
        }
        try {
            return ServerTls.serverContext(context);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(protocol + " TLS: " + e.getMessage(), e);
        }
    }

    /**
     * Binds the configured port (endpoint {@code name}) and, when {@code tls} is given, the configured
     * {@code tls-port} (endpoint {@code tlsName}).
     *
     * @param pipeline adds the protocol's handlers to a new connection (after the counter and TLS)
     */
    public CompletableFuture<List<Endpoint>> bindPlainAndTls(final String name, final String tlsName,
                                                             final SslContext tls,
                                                             final Consumer<Channel> pipeline) {
        final CompletableFuture<Endpoint> plain = bind(name, context.config().port(), null, pipeline)
                .thenApply(port -> Endpoint.tcp(name, context.advertisedHost(), port));
        if (tls == null) {
            return plain.thenApply(List::of);
        }
        return plain.thenCompose(p -> bind(tlsName, context.config().intValue("tls-port"), tls, pipeline)
                .thenApply(port -> List.of(p, Endpoint.tcp(tlsName, context.advertisedHost(), port))));
    }

    /**
     * Binds one port: each connection gets the connection counter, TLS when {@code tls} is given, then what
     * {@code pipeline} adds. Completes with the bound port (the configured one, or the one chosen for port 0); fails
     * with the address and the reason when the port cannot be bound.
     *
     * @param name names the listener in errors
     */
    public CompletableFuture<Integer> bind(final String name, final int port, final SslContext tls,
                                           final Consumer<Channel> pipeline) {
        return bind(name, port, tls, pipeline, context.eventLoops().serverBootstrap());
    }

    /** As {@link #bind(String, int, SslContext, Consumer)}, on a bootstrap with the caller's own server options. */
    public CompletableFuture<Integer> bind(final String name, final int port, final SslContext tls,
                                           final Consumer<Channel> pipeline, final ServerBootstrap bootstrap) {
        final CompletableFuture<Integer> bound = new CompletableFuture<>();
        final ChannelFuture f = bootstrap
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast("connections", context.connections().handler());
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                        }
                        pipeline.accept(ch);
                    }
                })
                .bind(context.bindAddress(), port);
        f.addListener(done -> {
            if (done.isSuccess()) {
                listeners.add(f.channel());
                bound.complete(((InetSocketAddress) f.channel().localAddress()).getPort());
            } else {
                bound.completeExceptionally(new IllegalStateException("cannot bind " + name + " to "
                        + context.bindAddress() + ":" + port + ": " + done.cause().getMessage(), done.cause()));
            }
        });
        return bound;
    }

    /** The open connections (closed ones leave the group by themselves). */
    public ChannelGroup connections() {
        return connections;
    }

    /** Stops accepting connections; open ones stay. */
    public void stopAccepting() {
        listeners.forEach(Channel::close);
        listeners.clear();
    }

    /** Stops accepting and closes every open connection; completes once they are closed. */
    public CompletableFuture<Void> close() {
        stopAccepting();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        connections.close().addListener(f -> closed.complete(null));
        return closed;
    }
}
