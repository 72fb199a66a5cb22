package io.junction.mqtt;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.http.HttpRoute;
import io.junction.spi.kit.NettyListener;
import io.junction.spi.tls.ServerTls;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.ssl.SslContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The MQTT 3.1.1 and 5.0 front-end on {@code mqtt.port} (default 1883).
 *
 * <p>With {@code mqtt.tls-enabled}, a second listener on {@code mqtt.tls-port} (default 8883) serves the same protocol
 * inside TLS (see {@link ServerTls}). Pipeline per connection: connection counter → (TLS) → {@link MqttDecoder} (capped
 * at {@code mqtt.max-packet-size}; a decode failure becomes a failed message that {@link MqttConnection} answers with
 * DISCONNECT 0x81/0x95 or a close) → shared {@link MqttEncoder} → {@link MqttConnection}; after CONNECT an {@code
 * IdleStateHandler} closes the connection after 1.5 × the keep-alive. Write buffers are bounded (low/high water marks
 * 32/128 KiB): deliveries pause while the channel is not writable.
 *
 * <h2>Mapping onto the core</h2>
 * The first topic level is the core topic (auto-created; characters a core name cannot hold are escaped as
 * {@code %XX}, see {@link CoreTopics}); the full MQTT topic travels as the property {@code mqtt.topic}; everything
 * else as documented in {@link MqttMessageMapping}. A session's subscription reads its core topic's queues by offset
 * (PULL with long polling) and filters on {@code mqtt.topic}; a persistent session commits its offsets under
 * {@code mqtt-<clientId>} after the client acknowledged a batch. Filters whose first level is a wildcard read every
 * non-internal core topic. Shared subscriptions {@code $share/<g>/<filter>} POP under consumer group
 * {@code mqtt-share-<g>}. Retained messages: see {@link RetainedStore}.
 */
public final class MqttFrontEnd implements ProtocolFrontEnd {
    /** The name of the packet decoder in a connection's pipeline. */
    static final String DECODER = "mqtt-decoder";
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 128 * 1024);

    private MqttBroker broker;
    private HttpRoute webSocketRoute;
    private NettyListener listener;

    @Override
    public String name() {
        return "mqtt";
    }

    @Override
    public List<ConfigKey> configKeys() {
        return MqttSettings.keys();
    }

    @Override
    public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
        final MqttSettings settings = MqttSettings.from(context.config());
        final SslContext tls;
        try {
            tls = NettyListener.tls(context, "MQTT");
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        broker = new MqttBroker(context.messaging(), context.accessControl(), settings,
                context.eventLoops().worker(), context.clients());
        listener = new NettyListener(context, WATER_MARK);
        return broker.start()
                .thenCompose(x -> listener.bindPlainAndTls("mqtt", "mqtts", tls,
                        ch -> initPipeline(ch.pipeline(), settings, broker)))
                .thenApply(endpoints -> {
                    webSocketRoute = context.httpRoutes().register(MqttOverWebSocket.PATH,
                            new MqttOverWebSocket(broker, context.connections()));
                    final String ws = context.httpRoutes().baseUrl().replaceFirst("^http", "ws")
                            + MqttOverWebSocket.PATH;
                    final List<Endpoint> all = new ArrayList<>(endpoints);
                    all.add(new Endpoint("mqtt-ws", ws));
                    return all;
                });
    }

    /** A connection's handlers after the counter and TLS (the fuzz target builds the same). */
    static void initPipeline(final ChannelPipeline pipeline, final MqttSettings settings, final MqttBroker broker) {
        pipeline.addLast(DECODER, new MqttDecoder(settings.maxPacketSize(), 65535))
                .addLast("mqtt-encoder", MqttEncoder.INSTANCE)
                .addLast("mqtt", new MqttConnection(broker));
    }

    @Override
    public CompletableFuture<Void> stop() {
        if (webSocketRoute != null) {
            webSocketRoute.close();
        }
        if (listener == null) {
            return CompletableFuture.completedFuture(null);
        }
        listener.stopAccepting();
        // MQTT 5 clients hear DISCONNECT 0x8B (server shutting down) before the connections close.
        final CompletableFuture<Void> told = broker == null ? CompletableFuture.completedFuture(null)
                : broker.closeAll().completeOnTimeout(null, 2, TimeUnit.SECONDS);
        // What shared subscriptions were giving back is stored before the core stops: a restart finds it at once.
        return told.handle((r, e) -> (Void) null).thenCompose(v -> listener.close())
                .thenCompose(v -> broker == null ? CompletableFuture.completedFuture(null)
                        : broker.givenBack().completeOnTimeout(null, 2, TimeUnit.SECONDS));
    }
}
