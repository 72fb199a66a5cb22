package io.junction.amqp;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.tls.ServerTls;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The AMQP 1.0 front-end on {@code amqp.port} (default 5672).
 *
 * <p>With {@code amqp.tls-enabled}, a second listener on {@code amqp.tls-port} (default 5671) speaks AMQP over TLS:
 * the same pipeline behind an {@code SslHandler}, with the configured certificate or the shared self-signed one
 * (see {@link ServerTls}).
 *
 * <p>Pipeline per connection: connection counter → {@link AmqpConnection}, which checks the protocol header itself
 * and then drives one proton-j transport, connection and collector from the channel's event loop (proton-j is not
 * thread-safe; every core future completes back onto that loop). Write buffers are bounded (32/256 KiB water
 * marks): consumer links stop taking messages from the core while the channel is not writable.
 *
 * <h2>Mapping onto the core</h2>
 * An address names a core topic ({@link AddressNames}). A link's capabilities choose the semantics
 * ({@link ConsumerKind}): a queue is one shared POP consumer group named after it; a topic gives every subscriber its
 * own group (transient, durable or shared); dynamic nodes are temporary topics owned by the connection. Messages map
 * as documented in {@link AmqpMessageMapping}.
 */
public final class AmqpFrontEnd implements ProtocolFrontEnd {
    /** How long a stop waits for connections to end their links and for their messages to be given back. */
    private static final long GIVE_BACK_MS = 3_000;
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 256 * 1024);

    private Channel serverChannel;
    private Channel tlsChannel;
    private AmqpBroker broker;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    @Override
    public String name() {
        return "amqp";
    }

    @Override
    public List<ConfigKey> configKeys() {
        return AmqpSettings.keys();
    }

    @Override
    public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
        final AmqpSettings settings = AmqpSettings.from(context.config());
        broker = new AmqpBroker(context.messaging(), context.accessControl(), settings);
        broker.removeLeftovers();
        final SslContext tls;
        try {
            tls = ServerTls.enabled(context.config()) ? ServerTls.serverContext(context) : null;
        } catch (IOException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("AMQP TLS: " + e.getMessage(), e));
        }
        final CompletableFuture<Channel> plain = bind(context, context.config().port(), null);
        final CompletableFuture<Channel> secure = tls == null ? CompletableFuture.completedFuture(null)
                : bind(context, context.config().intValue("tls-port"), tls);
        return plain.thenCombine(secure, (p, t) -> {
            serverChannel = p;
            tlsChannel = t;
            final List<Endpoint> endpoints = new ArrayList<>();
            endpoints.add(Endpoint.tcp("amqp", context.advertisedHost(), portOf(p)));
            if (t != null) {
                endpoints.add(Endpoint.tcp("amqps", context.advertisedHost(), portOf(t)));
            }
            return List.copyOf(endpoints);
        });
    }

    private CompletableFuture<Channel> bind(final BrokerContext context, final int port, final SslContext tls) {
        final CompletableFuture<Channel> bound = new CompletableFuture<>();
        final ChannelFuture f = context.eventLoops().serverBootstrap()
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast("connections", context.connections().handler());
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast("amqp", new AmqpConnection(broker));
                    }
                })
                .bind(context.bindAddress(), port);
        f.addListener(done -> {
            if (done.isSuccess()) {
                bound.complete(f.channel());
            } else {
                bound.completeExceptionally(new IllegalStateException("cannot bind AMQP" + (tls != null ? " TLS" : "")
                        + " to " + context.bindAddress() + ":" + port + ": " + done.cause().getMessage(),
                        done.cause()));
            }
        });
        return bound;
    }

    private static int portOf(final Channel channel) {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public CompletableFuture<Void> stop() {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        if (serverChannel != null) {
            serverChannel.close();
        }
        if (tlsChannel != null) {
            tlsChannel.close();
        }
        // Closing ends every link; what they held goes back to the groups before the core stops.
        channels.close().addListener(f -> broker.giveEverythingBack(GIVE_BACK_MS)
                .whenComplete((r, e) -> stopped.complete(null)));
        return stopped;
    }
}
