package io.junction.cloudevents;

import io.cloudevents.CloudEvent;
import io.junction.spi.EventLoops;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * POSTs one event in binary mode to a sink and reports the outcome. Connections are kept alive and reused per sink
 * (host and port), one request at a time each, so a busy subscription does not pay a TCP handshake per event and
 * does not leave a socket in TIME_WAIT per event; the dispatchers bound how many run at once.
 *
 * <p>An idle connection is reused for at most {@value #IDLE_REUSE_MILLIS} ms (sinks close idle keep-alive connections
 * on their own timers, Node.js's after 5 s), and at most {@value #MAX_IDLE_PER_SINK} wait per sink. A request that
 * fails on a reused connection before any answer (the sink closed it meanwhile) is sent once more on a new one, as
 * HTTP clients do: delivery is at least once either way.
 */
final class SinkClient {
    /** A sink's answer: its status, its Retry-After header (or null) and the start of its body. */
    record Outcome(int status, String retryAfter, String body) {
        boolean success() {
            return status >= 200 && status < 300;
        }
    }

    static final long IDLE_REUSE_MILLIS = 4_000;
    static final int MAX_IDLE_PER_SINK = 64;
    private static final int MAX_RESPONSE_BYTES = 64 * 1024;
    private static final int MAX_ERROR_DATA = 1024;

    private final EventLoops loops;
    /** Idle connections per {@code host:port}, most recently used first. */
    private final ConcurrentHashMap<String, ConcurrentLinkedDeque<Connection>> idle = new ConcurrentHashMap<>();

    SinkClient(final EventLoops loops) {
        this.loops = loops;
    }

    /** Completes with the sink's answer, or exceptionally (connection failure, {@link TimeoutException}). */
    CompletableFuture<Outcome> post(final URI sink, final CloudEvent event, final long timeoutMillis) {
        final CompletableFuture<Outcome> result = new CompletableFuture<>();
        final int port = sink.getPort() > 0 ? sink.getPort() : 80;
        final String key = sink.getHost() + ':' + port;
        final Connection reused = takeIdle(key);
        if (reused == null) {
            connectAndSend(key, sink, port, event, timeoutMillis, result);
        } else {
            reused.send(binaryRequest(sink, port, event), timeoutMillis, result,
                    () -> connectAndSend(key, sink, port, event, timeoutMillis, result));
        }
        return result;
    }

    private Connection takeIdle(final String key) {
        final ConcurrentLinkedDeque<Connection> waiting = idle.get(key);
        if (waiting == null) {
            return null;
        }
        for (Connection c; (c = waiting.pollFirst()) != null; ) {
            if (c.channel.isActive()) {
                return c;
            }
        }
        return null;
    }

    private void connectAndSend(final String key, final URI sink, final int port, final CloudEvent event,
                                final long timeoutMillis, final CompletableFuture<Outcome> result) {
        loops.clientBootstrap()
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        ch.pipeline().addLast(new HttpClientCodec());
                        ch.pipeline().addLast(new HttpObjectAggregator(MAX_RESPONSE_BYTES));
                        ch.pipeline().addLast(new Connection(key, ch));
                    }
                })
                .connect(sink.getHost(), port)
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        result.completeExceptionally(f.cause());
                        return;
                    }
                    f.channel().pipeline().get(Connection.class).send(binaryRequest(sink, port, event),
                            timeoutMillis, result, null);
                });
    }

    /** One kept-alive connection to a sink: one request at a time, touched on its event loop only. */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final String key;
        private final Channel channel;
        private CompletableFuture<Outcome> current;
        /** Sends the request again on a new connection; set while a reused connection has not answered. */
        private Runnable onStale;
        private ScheduledFuture<?> timeout;
        private ScheduledFuture<?> idleTimer;

        Connection(final String key, final Channel channel) {
            this.key = key;
            this.channel = channel;
        }

        void send(final FullHttpRequest request, final long timeoutMillis, final CompletableFuture<Outcome> result,
                  final Runnable retryElsewhere) {
            channel.eventLoop().execute(() -> {
                if (idleTimer != null) {
                    idleTimer.cancel(false);
                    idleTimer = null;
                }
                current = result;
                onStale = retryElsewhere;
                timeout = channel.eventLoop().schedule(() -> {
                    if (current == result) {
                        current = null;
                        result.completeExceptionally(new TimeoutException("no answer within " + timeoutMillis
                                + " ms"));
                        channel.close();
                    }
                }, timeoutMillis, TimeUnit.MILLISECONDS);
                channel.writeAndFlush(request).addListener(w -> {
                    if (!w.isSuccess()) {
                        failed(w.cause());
                    }
                });
            });
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpResponse r) {
            final CompletableFuture<Outcome> result = current;
            if (result == null) {
                channel.close(); // an answer nobody asked for (or after the timeout): the exchange is out of step
                return;
            }
            current = null;
            onStale = null;
            timeout.cancel(false);
            final String body = r.content().toString(r.content().readerIndex(),
                    Math.min(r.content().readableBytes(), MAX_ERROR_DATA), StandardCharsets.UTF_8);
            final Outcome outcome = new Outcome(r.status().code(), r.headers().get(HttpHeaderNames.RETRY_AFTER),
                    body);
            if (HttpUtil.isKeepAlive(r) && channel.isActive()) {
                release();
            } else {
                channel.close();
            }
            result.complete(outcome);
        }

        private void release() {
            final ConcurrentLinkedDeque<Connection> waiting = idle.computeIfAbsent(key,
                    k -> new ConcurrentLinkedDeque<>());
            if (waiting.size() >= MAX_IDLE_PER_SINK) {
                channel.close();
                return;
            }
            waiting.addFirst(this);
            // Whoever removes it from the deque owns it: a taker, the idle timer, or channelInactive.
            idleTimer = channel.eventLoop().schedule(() -> {
                if (waiting.remove(this)) {
                    channel.close();
                }
            }, IDLE_REUSE_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            final ConcurrentLinkedDeque<Connection> waiting = idle.get(key);
            if (waiting != null) {
                waiting.remove(this);
            }
            failed(new IOException("sink closed the connection"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            failed(cause);
        }

        private void failed(final Throwable cause) {
            final CompletableFuture<Outcome> result = current;
            final Runnable retry = onStale;
            current = null;
            onStale = null;
            if (timeout != null) {
                timeout.cancel(false);
            }
            channel.close();
            if (result == null) {
                return;
            }
            if (retry != null) {
                retry.run();
            } else {
                result.completeExceptionally(cause);
            }
        }
    }

    /** The binary-mode request: attributes as percent-encoded {@code ce-} headers, data as the body. */
    static FullHttpRequest binaryRequest(final URI sink, final int port, final CloudEvent event) {
        final byte[] data = event.getData() == null ? new byte[0] : event.getData().toBytes();
        final String path = (sink.getRawPath() == null || sink.getRawPath().isEmpty() ? "/" : sink.getRawPath())
                + (sink.getRawQuery() == null ? "" : "?" + sink.getRawQuery());
        final FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path,
                Unpooled.wrappedBuffer(data));
        final var h = request.headers();
        h.set(HttpHeaderNames.HOST, sink.getHost() + ":" + port);
        h.set(HttpHeaderNames.CONTENT_LENGTH, data.length);
        h.set("ce-specversion", event.getSpecVersion().toString());
        h.set("ce-id", encode(event.getId()));
        h.set("ce-source", encode(event.getSource().toString()));
        h.set("ce-type", encode(event.getType()));
        if (event.getDataContentType() != null) {
            h.set(HttpHeaderNames.CONTENT_TYPE, event.getDataContentType());
        }
        if (event.getTime() != null) {
            h.set("ce-time", event.getTime().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        }
        if (event.getSubject() != null) {
            h.set("ce-subject", encode(event.getSubject()));
        }
        if (event.getDataSchema() != null) {
            h.set("ce-dataschema", encode(event.getDataSchema().toString()));
        }
        for (final String name : event.getExtensionNames()) {
            final Object v = event.getExtension(name);
            if (v != null) {
                h.set("ce-" + name, encode(v.toString()));
            }
        }
        return request;
    }

    /** Percent-encodes space, '"', '%' and everything outside printable ASCII (UTF-8 bytes), as the binding says. */
    static String encode(final String value) {
        StringBuilder sb = null;
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            final int b = bytes[i] & 0xff;
            final boolean escape = b <= 0x20 || b >= 0x7f || b == '"' || b == '%';
            if (escape && sb == null) {
                sb = new StringBuilder(bytes.length + 16);
                sb.append(new String(bytes, 0, i, StandardCharsets.US_ASCII));
            }
            if (sb != null) {
                if (escape) {
                    sb.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
                            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
                } else {
                    sb.append((char) b);
                }
            }
        }
        return sb == null ? value : sb.toString();
    }
}
