package io.junction.broker.http;

import io.junction.spi.Endpoint;
import io.junction.spi.EventLoops;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.metrics.ConnectionCounter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;

/**
 * The shared HTTP server: binds, builds each connection's pipeline, and closes the server socket on stop. The same
 * routes are served in plain HTTP and, when configured, on a second listener inside TLS (HTTPS, and WSS for MQTT over
 * WebSocket).
 */
public final class HttpListener implements AutoCloseable {

    /** Limits of one connection's requests. */
    public record Limits(int maxRequestBytes, long readTimeoutMillis) {
    }

    private static final int MAX_INITIAL_LINE = 8 * 1024;
    private static final int MAX_HEADER_BYTES = 16 * 1024;

    private final Channel serverChannel;
    private final Endpoint endpoint;

    private HttpListener(final Channel serverChannel, final Endpoint endpoint) {
        this.serverChannel = serverChannel;
        this.endpoint = endpoint;
    }

    /**
     * Binds the listener; returns once it accepts connections.
     *
     * @throws ListenException when the address cannot be bound (port in use, no such address, permission)
     */
    public static HttpListener bind(final EventLoops loops, final String bindAddress, final int port,
                                    final String advertisedHost, final HttpRouter router, final Limits limits,
                                    final ConnectionCounter connections) throws ListenException {
        final HttpListener plain = bind(loops, bindAddress, port, advertisedHost, router, limits, connections, null);
        router.baseUrl(plain.endpoint.address());
        return plain;
    }

    /**
     * Binds the HTTPS listener: the same routes inside TLS.
     *
     * @throws ListenException when the address cannot be bound
     */
    public static HttpListener bindTls(final EventLoops loops, final String bindAddress, final int port,
                                       final String advertisedHost, final HttpRouter router, final Limits limits,
                                       final ConnectionCounter connections, final SslContext tls)
            throws ListenException {
        return bind(loops, bindAddress, port, advertisedHost, router, limits, connections, tls);
    }

    private static HttpListener bind(final EventLoops loops, final String bindAddress, final int port,
                                     final String advertisedHost, final HttpRouter router, final Limits limits,
                                     final ConnectionCounter connections, final SslContext tls)
            throws ListenException {
        final String scheme = tls == null ? "http" : "https";
        final ChannelFuture bound = loops.serverBootstrap()
                .option(ChannelOption.SO_BACKLOG, 256)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        final ChannelPipeline p = ch.pipeline();
                        p.addLast(connections.handler());
                        if (tls != null) {
                            p.addLast("tls", tls.newHandler(ch.alloc()));
                        }
                        p.addLast(HttpExchange.CODEC_HANDLER, new HttpServerCodec(new HttpDecoderConfig()
                                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                                .setMaxHeaderSize(MAX_HEADER_BYTES)));
                        p.addLast(HttpExchange.AGGREGATOR_HANDLER, new HttpObjectAggregator(limits.maxRequestBytes()));
                        p.addLast(HttpDispatcher.NAME, new HttpDispatcher(router, limits.readTimeoutMillis()));
                    }
                })
                .bind(bindAddress, port)
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new ListenException(scheme, bindAddress, port, bound.cause());
        }
        final int actualPort = ((InetSocketAddress) bound.channel().localAddress()).getPort();
        return new HttpListener(bound.channel(), Endpoint.url(scheme, scheme, advertisedHost, actualPort, ""));
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /** The bound port (differs from the configured one when that was 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Stops accepting; open connections close with the event loops. */
    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly();
    }
}
