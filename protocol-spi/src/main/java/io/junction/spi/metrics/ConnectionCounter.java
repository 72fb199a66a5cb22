package io.junction.spi.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Open connections of one protocol, exported as the gauge {@code junction_connections{protocol="<name>"}}.
 *
 * <p>The broker creates one per protocol and hands it over in the {@code BrokerContext}; Netty front-ends put
 * {@link #handler()} first in each child pipeline, others (gRPC runs its own shaded Netty) call {@link #opened()} and
 * {@link #closed()} from their transport callbacks.
 */
public final class ConnectionCounter {

    /** The meter name; Prometheus shows it as {@code junction_connections}. */
    public static final String METER_NAME = "junction.connections";

    private final String protocol;
    private final AtomicInteger open = new AtomicInteger();
    private final ChannelHandler handler = new CountingHandler();

    /** Registers the gauge for {@code protocol}; create at most one per protocol and registry. */
    public ConnectionCounter(final MeterRegistry registry, final String protocol) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        // Strong reference: the registry must keep reporting even if only it holds the counter.
        Gauge.builder(METER_NAME, open, AtomicInteger::get)
                .description("Open client connections")
                .tag("protocol", protocol)
                .strongReference(true)
                .register(registry);
    }

    public String protocol() {
        return protocol;
    }

    public void opened() {
        open.incrementAndGet();
    }

    public void closed() {
        open.decrementAndGet();
    }

    /** Connections open now. */
    public int current() {
        return open.get();
    }

    /** A shared Netty handler that counts its channel while it is active; add it first to each child pipeline. */
    public ChannelHandler handler() {
        return handler;
    }

    @ChannelHandler.Sharable
    private final class CountingHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            opened();
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            closed();
            ctx.fireChannelInactive();
        }
    }
}
