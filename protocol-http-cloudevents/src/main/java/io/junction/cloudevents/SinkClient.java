package io.junction.cloudevents;

import io.cloudevents.CloudEvent;
import io.junction.spi.EventLoops;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * POSTs one event in binary mode to a sink over a fresh connection on the shared event loops and reports the outcome.
 * One connection per delivery keeps the client simple and every delivery independent (a slow response never holds up
 * another); the dispatcher bounds how many run at once per subscription.
 */
final class SinkClient {
    /** A sink's answer: its status, its Retry-After header (or null) and the start of its body. */
    record Outcome(int status, String retryAfter, String body) {
        boolean success() {
            return status >= 200 && status < 300;
        }
    }

    private static final int MAX_RESPONSE_BYTES = 64 * 1024;
    private static final int MAX_ERROR_DATA = 1024;

    private final EventLoops loops;

    SinkClient(final EventLoops loops) {
        this.loops = loops;
    }

    /** Completes with the sink's answer, or exceptionally (connection failure, {@link TimeoutException}). */
    CompletableFuture<Outcome> post(final URI sink, final CloudEvent event, final long timeoutMillis) {
        final CompletableFuture<Outcome> result = new CompletableFuture<>();
        final int port = sink.getPort() > 0 ? sink.getPort() : 80;
        loops.clientBootstrap()
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        ch.pipeline().addLast(new HttpClientCodec());
                        ch.pipeline().addLast(new HttpObjectAggregator(MAX_RESPONSE_BYTES));
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<FullHttpResponse>() {
                            @Override
                            protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpResponse r) {
                                final String body = r.content().toString(r.content().readerIndex(),
                                        Math.min(r.content().readableBytes(), MAX_ERROR_DATA), StandardCharsets.UTF_8);
                                result.complete(new Outcome(r.status().code(),
                                        r.headers().get(HttpHeaderNames.RETRY_AFTER), body));
                                ctx.close();
                            }

                            @Override
                            public void channelInactive(final ChannelHandlerContext ctx) {
                                result.completeExceptionally(new java.io.IOException("sink closed the connection"));
                                ctx.fireChannelInactive();
                            }

                            @Override
                            public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
                                result.completeExceptionally(cause);
                                ctx.close();
                            }
                        });
                    }
                })
                .connect(sink.getHost(), port)
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        result.completeExceptionally(f.cause());
                        return;
                    }
                    final Channel ch = ((io.netty.channel.ChannelFuture) f).channel();
                    final var timer = ch.eventLoop().schedule(() -> {
                        if (result.completeExceptionally(new TimeoutException("no answer within " + timeoutMillis
                                + " ms"))) {
                            ch.close();
                        }
                    }, timeoutMillis, TimeUnit.MILLISECONDS);
                    result.whenComplete((o, e) -> timer.cancel(false));
                    ch.writeAndFlush(binaryRequest(sink, port, event)).addListener(w -> {
                        if (!w.isSuccess()) {
                            result.completeExceptionally(w.cause());
                            ch.close();
                        }
                    });
                });
        return result;
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
        h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
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
