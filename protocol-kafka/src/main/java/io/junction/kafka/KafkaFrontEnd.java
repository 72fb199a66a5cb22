package io.junction.kafka;

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
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Kafka front-end on {@code kafka.port} (default 9092).
 *
 * <p>With {@code kafka.tls-enabled}, a second listener on {@code kafka.tls-port} (default 9093) serves the same protocol
 * inside TLS ({@link ServerTls}); clients connected there are told that port in Metadata.
 *
 * <p>Pipeline per connection: connection counter → (TLS) → {@link LengthFieldBasedFrameDecoder} (4-byte size prefix, capped at
 * {@code kafka.max-request-size}: a larger or negative size closes the connection) → {@link KafkaConnection} (request
 * header and body parsed by kafka-clients' own classes, handlers in {@link KafkaApis}, responses in request order).
 * Clients are told this node ({@code broker.host} and the listener's port) is the only broker and every partition's
 * leader. A Kafka partition is a core queue and its offsets are the queue's offsets; records map as
 * {@link KafkaMessageMapping} documents.
 */
public final class KafkaFrontEnd implements ProtocolFrontEnd {
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(64 * 1024, 1024 * 1024);

    private final List<Channel> serverChannels = new CopyOnWriteArrayList<>();
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private GroupCoordinator coordinator;
    private KafkaApis apis;

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public List<ConfigKey> configKeys() {
        return KafkaSettings.keys();
    }

    @Override
    public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
        final KafkaSettings settings = KafkaSettings.from(context.config());
        coordinator = new GroupCoordinator(context.messaging(), settings.initialRebalanceDelayMs(),
                System::currentTimeMillis);
        final SslContext tls;
        try {
            tls = ServerTls.enabled(context.config()) ? ServerTls.serverContext(context) : null;
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("Kafka TLS: " + e.getMessage(), e));
        }
        final KafkaApis apis = new KafkaApis(context.messaging(), settings, coordinator, context.accessControl());
        this.apis = apis;
        final CompletableFuture<List<Endpoint>> plain = bind(context, settings, apis, context.config().port(), null);
        if (tls == null) {
            return plain;
        }
        return plain.thenCompose(p -> bind(context, settings, apis, context.config().intValue("tls-port"), tls)
                .thenApply(secure -> {
                    final List<Endpoint> all = new ArrayList<>(p);
                    all.addAll(secure);
                    return all;
                }));
    }

    /** One listener: plain Kafka, or Kafka inside TLS when {@code tls} is given. */
    private CompletableFuture<List<Endpoint>> bind(final BrokerContext context, final KafkaSettings settings,
                                                   final KafkaApis apis, final int port, final SslContext tls) {
        final String name = tls == null ? "kafka" : "kafka-tls";
        final CompletableFuture<List<Endpoint>> bound = new CompletableFuture<>();
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
                        ch.pipeline().addLast("frames", new LengthFieldBasedFrameDecoder(settings.maxRequestSize(),
                                        0, 4, 0, 4))
                                .addLast("kafka", new KafkaConnection(apis, settings.maxPendingRequests(),
                                        context.advertisedHost(),
                                        ((InetSocketAddress) ch.localAddress()).getPort(),
                                        apis.anonymousScope()));
                    }
                })
                .bind(context.bindAddress(), port);
        f.addListener(done -> {
            if (done.isSuccess()) {
                serverChannels.add(f.channel());
                final int actual = ((InetSocketAddress) f.channel().localAddress()).getPort();
                bound.complete(List.of(Endpoint.tcp(name, context.advertisedHost(), actual)));
            } else {
                bound.completeExceptionally(new IllegalStateException("cannot bind " + name + " to "
                        + context.bindAddress() + ":" + port + ": " + done.cause().getMessage(), done.cause()));
            }
        });
        return bound;
    }

    @Override
    public CompletableFuture<Void> stop() {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        serverChannels.forEach(Channel::close);
        channels.close().addListener(f -> {
            if (coordinator != null) {
                coordinator.close();
            }
            if (apis != null) {
                apis.close();
            }
            stopped.complete(null);
        });
        return stopped;
    }
}
