package io.junction.broker.http;

import io.junction.spi.http.HttpExchange;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request on one connection. What the response needs from the request (keep-alive, HEAD) is captured up front,
 * because the request is released when the handler returns while the response may come much later from another
 * thread.
 */
final class NettyHttpExchange implements HttpExchange {
    private final HttpDispatcher dispatcher;
    private final ChannelHandlerContext ctx;
    private final FullHttpRequest request;
    private final QueryStringDecoder uri;
    private final boolean keepAlive;
    private final boolean head;
    private final AtomicBoolean answered = new AtomicBoolean();

    NettyHttpExchange(final HttpDispatcher dispatcher, final ChannelHandlerContext ctx,
                      final FullHttpRequest request) {
        this.dispatcher = dispatcher;
        this.ctx = ctx;
        this.request = request;
        this.uri = new QueryStringDecoder(request.uri());
        this.keepAlive = HttpUtil.isKeepAlive(request);
        this.head = HttpMethod.HEAD.equals(request.method());
    }

    @Override
    public FullHttpRequest request() {
        return request;
    }

    @Override
    public String path() {
        return uri.path();
    }

    @Override
    public Map<String, List<String>> queryParameters() {
        return uri.parameters();
    }

    @Override
    public Channel channel() {
        return ctx.channel();
    }

    @Override
    public void respond(final HttpResponseStatus status, final String contentType, final String body) {
        respond(Responses.of(status, contentType, body));
    }

    @Override
    public void respond(final FullHttpResponse response) {
        send(response, keepAlive);
    }

    /** For requests the connection cannot continue after (malformed ones). */
    void respondAndClose(final HttpResponseStatus status) {
        send(Responses.text(status, status.reasonPhrase()), false);
    }

    /** After a handler threw: answer 500 unless it already answered or took the connection over. */
    void failIfUnanswered() {
        if (!answered.get()) {
            send(Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error"), false);
        }
    }

    @Override
    public ChannelPipeline takeOver() {
        if (!ctx.executor().inEventLoop()) {
            throw new IllegalStateException("takeOver() must be called on the connection's event loop");
        }
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("this exchange was already answered or taken over");
        }
        return dispatcher.detach();
    }

    private void send(final FullHttpResponse response, final boolean allowKeepAlive) {
        if (!answered.compareAndSet(false, true)) {
            response.release();
            throw new IllegalStateException("this exchange was already answered or taken over");
        }
        if (ctx.executor().inEventLoop()) {
            write(response, allowKeepAlive);
        } else {
            ctx.executor().execute(() -> write(response, allowKeepAlive));
        }
    }

    private void write(final FullHttpResponse response, final boolean allowKeepAlive) {
        final boolean keep = allowKeepAlive
                && !response.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
        HttpUtil.setContentLength(response, response.content().readableBytes());
        HttpUtil.setKeepAlive(response, keep);
        // HEAD: same headers (content-length included), no body.
        final FullHttpResponse out = head ? withoutBody(response) : response;
        ctx.writeAndFlush(out).addListener((ChannelFutureListener) f -> {
            final boolean continues = keep && f.isSuccess();
            if (!continues) {
                f.channel().close();
            }
            dispatcher.responded(this, continues);
        });
    }

    private static FullHttpResponse withoutBody(final FullHttpResponse response) {
        final FullHttpResponse empty = response.replace(Unpooled.EMPTY_BUFFER);
        response.release();
        return empty;
    }
}
