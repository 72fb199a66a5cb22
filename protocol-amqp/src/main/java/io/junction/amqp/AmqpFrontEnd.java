package io.junction.amqp;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.kit.NettyListener;
import io.junction.spi.tls.ServerTls;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
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
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 256 * 1024);

    private AmqpBroker broker;
    private NettyListener listener;

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
        broker = new AmqpBroker(context.messaging(), context.accessControl(), settings, context.clients());
        broker.removeLeftovers();
        final SslContext tls;
        try {
            tls = NettyListener.tls(context, "AMQP");
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        listener = new NettyListener(context, WATER_MARK);
        return listener.bindPlainAndTls("amqp", "amqps", tls,
                ch -> ch.pipeline().addLast("amqp", new AmqpConnection(broker)));
    }

    @Override
    public CompletableFuture<Void> stop() {
        if (listener == null) {
            return CompletableFuture.completedFuture(null);
        }
        // Closing ends every link; what they held goes back to the groups before the core stops.
        return listener.close().thenCompose(v -> broker.giveEverythingBack(GIVE_BACK_MS))
                .handle((r, e) -> (Void) null);
    }
}
