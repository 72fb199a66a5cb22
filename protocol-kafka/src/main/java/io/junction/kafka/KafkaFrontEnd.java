package io.junction.kafka;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.kit.NettyListener;
import io.junction.spi.tls.ServerTls;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Kafka front-end on {@code kafka.port} (default 9092).
 *
 * <p>With {@code kafka.tls-enabled}, a second listener on {@code kafka.tls-port} (default 9093) serves the same
 * protocol inside TLS ({@link ServerTls}); clients connected there are told that port in Metadata.
 *
 * <p>Both listeners are a {@link NettyListener}. Pipeline per connection: connection counter → (TLS) →
 * {@link LengthFieldBasedFrameDecoder} (4-byte size prefix, capped at {@code kafka.max-request-size}: a larger or
 * negative size closes the connection) → {@link KafkaConnection} (request
 * header and body parsed by kafka-clients' own classes, handlers in {@link KafkaApis}, responses in request order).
 * Clients are told this node ({@code broker.host} and the listener's port) is the only broker and every partition's
 * leader. A Kafka partition is a core queue and its offsets are the queue's offsets; records map as
 * {@link KafkaMessageMapping} documents.
 */
public final class KafkaFrontEnd implements ProtocolFrontEnd {
    /** The name of the frame decoder in a connection's pipeline. */
    static final String FRAMES = "frames";
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(64 * 1024, 1024 * 1024);

    private NettyListener listener;
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
            tls = NettyListener.tls(context, "Kafka");
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        final KafkaApis apis = new KafkaApis(context.messaging(), settings, coordinator, context.accessControl());
        this.apis = apis;
        listener = new NettyListener(context, WATER_MARK);
        // Transactions interrupted by a crash are settled before any client can ask about them.
        // A client is told the port it connected to as this broker's, so a TLS client stays on TLS (Metadata).
        return apis.recover().thenCompose(x -> listener.bindPlainAndTls("kafka", "kafka-tls", tls,
                ch -> initPipeline(ch.pipeline(), settings, apis, context.advertisedHost(),
                        ((InetSocketAddress) ch.localAddress()).getPort(), context.clients())));
    }

    /**
     * A connection's handlers after the counter and TLS (the tests and the fuzz target build the same): frames capped
     * at the maximum request size, then the connection, which tells the client {@code host:port} is this broker and
     * lists itself in {@code clients}.
     */
    static void initPipeline(final ChannelPipeline pipeline, final KafkaSettings settings, final KafkaApis apis,
                             final String host, final int port, final ClientRegistry clients) {
        pipeline.addLast(FRAMES, new LengthFieldBasedFrameDecoder(settings.maxRequestSize(), 0, 4, 0, 4))
                .addLast("kafka", new KafkaConnection(apis, settings.maxPendingRequests(), host, port,
                        apis.anonymousScope(), clients));
    }

    @Override
    public CompletableFuture<Void> stop() {
        final CompletableFuture<Void> closed = listener == null ? CompletableFuture.completedFuture(null)
                : listener.close();
        return closed.thenRun(() -> {
            if (coordinator != null) {
                coordinator.close();
            }
            if (apis != null) {
                apis.close();
            }
        });
    }
}
