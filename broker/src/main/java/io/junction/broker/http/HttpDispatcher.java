package io.junction.broker.http;

import io.junction.spi.http.HttpHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per connection (not sharable): hands each complete request to its route and keeps the connection's HTTP rules.
 *
 * <ul>
 *   <li>One request at a time: a request that arrives while another is being answered (pipelining) waits in a small
 *   queue and reading pauses until the queue is empty, so responses go out in request order even though handlers
 *   answer asynchronously. A client that waits for each answer never pauses reading: toggling it costs two
 *   {@code epoll_ctl} system calls per request.</li>
 *   <li>Read timeout: while no request is being answered, the next complete request must arrive within the timeout
 *   (this covers slow headers, slow bodies and idle keep-alive connections alike). One timer per connection checks
 *   the time the connection became idle, rather than a timer scheduled and cancelled for every request.</li>
 *   <li>Malformed requests get 400 (414/431 for a too-long line/header) and a close; unknown paths 404.</li>
 * </ul>
 * All state is touched on the channel's event loop only.
 */
final class HttpDispatcher extends ChannelInboundHandlerAdapter {

    static final String NAME = "http-dispatcher";

    private static final Logger LOG = LoggerFactory.getLogger(HttpDispatcher.class);

    /** Pipelined requests held while one is answered; a client sending more is closed. */
    private static final int MAX_PIPELINED = 16;

    private final HttpRouter router;
    private final long readTimeoutMillis;
    private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private NettyHttpExchange inFlight;
    private ScheduledFuture<?> readTimer;
    /** {@link System#nanoTime()} when the connection last became idle; {@code -1} while a request is answered. */
    private long idleSinceNanos = -1;
    private boolean detached;

    HttpDispatcher(final HttpRouter router, final long readTimeoutMillis) {
        this.router = router;
        this.readTimeoutMillis = readTimeoutMillis;
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext context) {
        this.ctx = context;
        if (context.channel().isActive()) {
            armReadTimer();
        }
    }

    @Override
    public void channelActive(final ChannelHandlerContext context) {
        armReadTimer();
        context.fireChannelActive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext context, final Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg); // the aggregator only emits full requests; nothing else is ours
            return;
        }
        idleSinceNanos = -1;
        if (inFlight != null) {
            if (pending.size() >= MAX_PIPELINED) {
                request.release();
                context.close();
                return;
            }
            pending.add(request);
            context.channel().config().setAutoRead(false);
            return;
        }
        dispatch(request);
    }

    private void dispatch(final FullHttpRequest request) {
        final NettyHttpExchange exchange = new NettyHttpExchange(this, ctx, request);
        inFlight = exchange;
        try {
            if (!request.decoderResult().isSuccess()) {
                exchange.respondAndClose(statusFor(request.decoderResult().cause()));
                return;
            }
            final HttpHandler handler = router.find(exchange.path());
            if (handler == null) {
                exchange.respond(Responses.text(HttpResponseStatus.NOT_FOUND, "no route for " + exchange.path()));
                return;
            }
            handler.handle(exchange);
        } catch (final RuntimeException e) {
            LOG.warn("HTTP handler failed for {} {}", request.method(), exchange.path(), e);
            exchange.failIfUnanswered();
        } finally {
            request.release();
        }
    }

    /** Called on the event loop once an exchange's response is written (or failed). */
    void responded(final NettyHttpExchange exchange, final boolean keepAlive) {
        if (exchange != inFlight || detached) {
            return;
        }
        inFlight = null;
        if (!keepAlive) {
            return; // the exchange is closing the connection
        }
        final FullHttpRequest next = pending.poll();
        if (next != null) {
            dispatch(next);
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
        armReadTimer();
    }

    /** Removes this dispatcher so a front-end can own the connection (protocol upgrade). */
    ChannelPipeline detach() {
        detached = true;
        inFlight = null;
        cancelReadTimer();
        releasePending();
        final ChannelPipeline pipeline = ctx.pipeline();
        pipeline.remove(this);
        ctx.channel().config().setAutoRead(true);
        return pipeline;
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context) {
        cancelReadTimer();
        releasePending();
        context.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(final ChannelHandlerContext context) {
        cancelReadTimer();
        releasePending();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext context, final Throwable cause) {
        // Resets and broken pipes are routine for a server; nothing to answer on a failed connection.
        LOG.debug("HTTP connection {} failed", context.channel().remoteAddress(), cause);
        context.close();
    }

    /** The connection is idle from now on: the next complete request is due within the timeout. */
    private void armReadTimer() {
        if (readTimeoutMillis <= 0 || detached) {
            return;
        }
        idleSinceNanos = System.nanoTime();
        if (readTimer == null) {
            readTimer = ctx.executor().schedule(this::readTimerFired, readTimeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void cancelReadTimer() {
        if (readTimer != null) {
            readTimer.cancel(false);
            readTimer = null;
        }
    }

    private void readTimerFired() {
        readTimer = null;
        if (detached || !ctx.channel().isActive()) {
            return;
        }
        long delayMillis = readTimeoutMillis; // busy: look again a timeout from now
        if (inFlight == null && idleSinceNanos >= 0) {
            final long idleMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleSinceNanos);
            if (idleMillis >= readTimeoutMillis) {
                LOG.debug("closing HTTP connection {}: no complete request within {} ms",
                        ctx.channel().remoteAddress(), readTimeoutMillis);
                ctx.close();
                return;
            }
            delayMillis = readTimeoutMillis - idleMillis;
        }
        readTimer = ctx.executor().schedule(this::readTimerFired, delayMillis, TimeUnit.MILLISECONDS);
    }

    private void releasePending() {
        FullHttpRequest r;
        while ((r = pending.poll()) != null) {
            r.release();
        }
    }

    private static HttpResponseStatus statusFor(final Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        }
        if (cause instanceof TooLongFrameException) {
            return HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
        }
        return HttpResponseStatus.BAD_REQUEST;
    }
}
