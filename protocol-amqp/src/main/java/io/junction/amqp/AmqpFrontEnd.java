package io.junction.amqp;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The AMQP 1.0 front-end on {@code amqp.port} (default 5672).
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
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 256 * 1024);

    private Channel serverChannel;
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
        final int port = context.config().port();
        final CompletableFuture<List<Endpoint>> bound = new CompletableFuture<>();
        final ChannelFuture f = context.eventLoops().serverBootstrap()
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast("connections", context.connections().handler())
                                .addLast("amqp", new AmqpConnection(broker));
                    }
                })
                .bind(context.bindAddress(), port);
        f.addListener(done -> {
            if (done.isSuccess()) {
                serverChannel = f.channel();
                final int actual = ((InetSocketAddress) serverChannel.localAddress()).getPort();
                bound.complete(List.of(Endpoint.tcp("amqp", context.advertisedHost(), actual)));
            } else {
                bound.completeExceptionally(new IllegalStateException("cannot bind AMQP to "
                        + context.bindAddress() + ":" + port + ": " + done.cause().getMessage(), done.cause()));
            }
        });
        return bound;
    }

    @Override
    public CompletableFuture<Void> stop() {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        if (serverChannel != null) {
            serverChannel.close();
        }
        channels.close().addListener(f -> stopped.complete(null));
        return stopped;
    }
}
