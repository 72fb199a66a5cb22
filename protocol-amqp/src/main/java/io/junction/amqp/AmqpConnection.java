package io.junction.amqp;

import io.junction.spi.clients.ClientRegistry;
import io.junction.tenancy.Principal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.engine.TransportException;
import org.apache.qpid.proton.engine.impl.TransportImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One AMQP network connection: checks the protocol header, then drives a proton-j transport, connection and collector
 * from the channel's event loop only (proton-j is not thread-safe), and writes what the transport produces.
 *
 * <p>Input: bytes go into the transport in pieces no larger than its free capacity (so nothing is buffered beyond one
 * frame); a {@link FrameGuard} vets each decoded frame first. Any decode failure, frame-order violation or
 * oversize frame closes the connection with the matching AMQP error condition, after which further input is
 * dropped. Output is collected after each batch of reads and after asynchronous completions (coalesced into one
 * event-loop task). Idle timeouts run on proton's {@code tick}, scheduled for the deadline it returns. Endpoint
 * events go to {@link Endpoints}.
 */
final class AmqpConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpConnection.class);
    /** The header we answer an unsupported one with (SASL first, as we prefer). */
    private static final long BASE_NANOS = System.nanoTime();

    private final AmqpBroker broker;
    private final AmqpSettings settings;
    private ChannelHandlerContext ctx;
    private Transport transport;
    private Connection connection;
    private Collector collector;
    private SaslServer sasl;
    private FrameGuard guard;
    private Endpoints endpoints;
    private final ProtocolHeader header = new ProtocolHeader();
    private boolean saslSkipped;
    /** Set once the connection is failing or done: further input is dropped. */
    private boolean closing;
    private boolean flushScheduled;
    private boolean opening;
    private Principal principal;
    /** Whether this connection counts against its namespace's connection quota (released when it closes). */
    private boolean countedConnection;
    /** This connection in the broker's list of clients, once open. */
    private ClientRegistry.Registration listed;
    private ScheduledFuture<?> openTimeout;
    private ScheduledFuture<?> tick;
    private long tickAt;

    AmqpConnection(final AmqpBroker broker) {
        this.broker = broker;
        this.settings = broker.settings();
    }

    Principal principal() {
        return principal;
    }

    EventExecutor executor() {
        return ctx.executor();
    }

    boolean writable() {
        return ctx.channel().isWritable();
    }

    String remote() {
        return String.valueOf(ctx.channel().remoteAddress());
    }

    /** The client's address as connections are listed ({@code host:port}). */
    String listedRemote() {
        return ClientRegistry.address(ctx.channel().remoteAddress());
    }

    // ------------------------------------------------------------------------------------------------ netty

    @Override
    public void handlerAdded(final ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        transport = Proton.transport();
        transport.setMaxFrameSize(settings.maxFrameSize());
        transport.setChannelMax(settings.channelMax());
        if (settings.idleTimeoutMs() > 0) {
            transport.setIdleTimeout(settings.idleTimeoutMs());
        }
        broker.connectionStarted();
        guard = new FrameGuard(settings.channelMax());
        ((TransportImpl) transport).setProtocolTracer(guard);
        sasl = new SaslServer(transport.sasl(), broker.accessControl(), ctx.channel().remoteAddress());
        connection = Proton.connection();
        collector = Proton.collector();
        connection.collect(collector);
        transport.bind(connection);
        endpoints = new Endpoints(this, broker, connection);
        openTimeout = ctx.executor().schedule(() -> {
            if (!closing) {
                LOG.debug("AMQP connection {} did not open in time", remote());
                closeNow();
            }
        }, settings.saslTimeoutMs(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf in = (ByteBuf) msg;
        try {
            if (closing) {
                return;
            }
            if (!header.complete()) {
                if (!header.read(in)) {
                    rejectHeader();
                    return;
                }
                if (!header.complete()) {
                    return;
                }
                saslSkipped = !header.sasl();
                feed(header.bytes());
            }
            feed(in);
        } finally {
            in.release();
        }
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx) {
        flushNow();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && endpoints != null) {
            endpoints.writable();
            flushNow();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        closing = true;
        if (listed != null) {
            listed.close();
        }
        cancelTimers();
        if (countedConnection) {
            countedConnection = false;
            broker.accessControl().connectionClosed(principal);
        }
        if (endpoints != null) {
            endpoints.connectionLost();
            broker.connectionEnded();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        LOG.debug("AMQP connection {} failed", remote(), cause);
        closeNow();
    }

    // ------------------------------------------------------------------------------------------------ header

    /** An unsupported header: answer with the one we speak and close, as the spec asks (part 2.2). */
    private void rejectHeader() {
        closing = true;
        cancelTimers();
        ctx.writeAndFlush(ProtocolHeader.saslHeader()).addListener(ChannelFutureListener.CLOSE);
    }

    // ------------------------------------------------------------------------------------------------ input

    private void feed(final ByteBuf in) {
        while (in.isReadable() && !closing) {
            final int capacity = transport.capacity();
            if (capacity <= 0) {
                // The transport takes no more input (its input side ended): what follows is ignored.
                in.skipBytes(in.readableBytes());
                closeAfterFlush();
                return;
            }
            final ByteBuffer tail = transport.tail();
            final int n = Math.min(tail.remaining(), in.readableBytes());
            final int limit = tail.limit();
            tail.limit(tail.position() + n);
            in.readBytes(tail);
            tail.limit(limit);
            try {
                transport.process();
            } catch (FrameGuard.Violation v) {
                fail(v.condition());
                return;
            } catch (TransportException e) {
                fail(conditionOf(e));
                return;
            } catch (RuntimeException e) {
                LOG.debug("AMQP input from {} failed", remote(), e);
                fail(guard.violation() != null ? guard.violation()
                        : AmqpErrors.of(AmqpErrors.DECODE_ERROR, String.valueOf(e.getMessage())));
                return;
            }
            afterInput();
        }
    }

    private ErrorCondition conditionOf(final TransportException e) {
        if (guard.violation() != null) {
            return guard.violation();
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DecodeException) {
                return AmqpErrors.of(AmqpErrors.DECODE_ERROR, t.getMessage());
            }
            if (t instanceof FrameGuard.Violation v) {
                return v.condition();
            }
        }
        return AmqpErrors.of(AmqpErrors.FRAMING_ERROR, e.getMessage());
    }

    private void afterInput() {
        if (!saslSkipped) {
            final CompletableFuture<Principal> auth = sasl.poll();
            if (auth != null) {
                auth.whenCompleteAsync((p, e) -> saslDone(p), ctx.executor());
            }
        }
        processEvents();
    }

    private void saslDone(final Principal p) {
        if (closing) {
            return;
        }
        if (p == null) {
            LOG.debug("AMQP SASL authentication of {} failed", remote());
            sasl.done(false);
            flushNow(); // the outcome goes out before the close (Qpid JMS reports it as a JMSSecurityException)
            closeAfterFlush();
            return;
        } else {
            principal = p;
            sasl.done(true);
            processEvents();
        }
        flushNow();
    }

    // ------------------------------------------------------------------------------------------------ events

    private void processEvents() {
        Event event;
        while ((event = collector.peek()) != null) {
            if (principal == null && waitsForAuthentication(event.getType())) {
                return; // a pipelining client's sessions and links wait until we know who it is (then run again)
            }
            try {
                dispatch(event);
            } catch (RuntimeException e) {
                LOG.warn("AMQP connection {}: handling {} failed", remote(), event.getType(), e);
                fail(AmqpErrors.of(AmqpErrors.INTERNAL, "internal error"));
            } finally {
                collector.pop();
            }
        }
    }

    private static boolean waitsForAuthentication(final Event.Type type) {
        return switch (type) {
            case SESSION_REMOTE_OPEN, SESSION_REMOTE_CLOSE, LINK_REMOTE_OPEN, LINK_REMOTE_DETACH, LINK_REMOTE_CLOSE,
                    LINK_FLOW, DELIVERY -> true;
            default -> false;
        };
    }

    private void dispatch(final Event event) {
        switch (event.getType()) {
            case CONNECTION_REMOTE_OPEN -> remoteOpen();
            case CONNECTION_REMOTE_CLOSE -> endpoints.remoteClosed(() -> {
                if (connection.getLocalState() != EndpointState.CLOSED) {
                    if (connection.getLocalState() == EndpointState.UNINITIALIZED) {
                        connection.open();
                    }
                    connection.close();
                }
            });
            case SESSION_REMOTE_OPEN -> endpoints.sessionOpened(event.getSession());
            case SESSION_REMOTE_CLOSE -> endpoints.sessionClosed(event.getSession());
            case LINK_REMOTE_OPEN -> endpoints.linkOpened(event.getLink());
            case LINK_REMOTE_DETACH -> endpoints.linkEnded(event.getLink(), false);
            case LINK_REMOTE_CLOSE -> endpoints.linkEnded(event.getLink(), true);
            case LINK_FLOW -> endpoints.flow(event.getLink());
            case DELIVERY -> endpoints.delivery(event.getDelivery());
            case TRANSPORT_CLOSED, TRANSPORT_HEAD_CLOSED -> closeAfterFlush();
            default -> {
                // local state changes and finals need no action
            }
        }
    }

    private void remoteOpen() {
        if (opening || connection.getLocalState() != EndpointState.UNINITIALIZED) {
            return;
        }
        opening = true;
        if (principal != null) {
            open();
            return;
        }
        // SASL was skipped: the client is anonymous, if tenancy lets anonymous clients in.
        sasl.skipped().whenCompleteAsync((p, e) -> {
            if (closing) {
                return;
            }
            if (p == null) {
                connection.setCondition(AmqpErrors.of(AmqpErrors.UNAUTHORIZED, "anonymous access refused"));
                connection.open();
                connection.close();
                flushNow();
                closeAfterFlush();
                return;
            }
            principal = p;
            open();
            processEvents();
            flushNow();
        }, ctx.executor());
    }

    private void open() {
        if (openTimeout != null) {
            openTimeout.cancel(false);
        }
        if (!broker.accessControl().connectionOpened(principal)) {
            connection.setCondition(AmqpErrors.of(AmqpErrors.RESOURCE_LIMIT,
                    "the namespace has its maximum number of connections open"));
            connection.open();
            connection.close();
            flushNow();
            closeAfterFlush();
            return;
        }
        countedConnection = true;
        endpoints.open();
        listed = broker.clients().add("amqp", "1.0", endpoints.containerId(), principal == null ? "" : principal.name(),
                ctx.channel().remoteAddress(),
                endpoints::linkDescriptions, () -> ctx.executor().execute(() -> fail(AmqpErrors.of(
                        AmqpErrors.CONNECTION_FORCED, "disconnected by an administrator"))));
    }

    // ------------------------------------------------------------------------------------------------ output

    /** Asks for the transport's output to be written soon; many completions in one loop turn share one write. */
    void requestFlush() {
        if (!flushScheduled && !closing) {
            flushScheduled = true;
            ctx.executor().execute(this::flushNow);
        }
    }

    /** Handles pending events and writes everything the transport has to send. */
    void flushNow() {
        flushScheduled = false;
        if (transport == null || !ctx.channel().isOpen()) {
            return;
        }
        processEvents();
        scheduleTick();
        boolean wrote = false;
        boolean ended = false;
        while (true) {
            final int pending;
            try {
                pending = transport.pending();
            } catch (RuntimeException e) {
                LOG.debug("AMQP output to {} failed", remote(), e);
                ended = true;
                break;
            }
            if (pending <= 0) {
                ended = pending < 0;
                break;
            }
            // head() runs the output side again and may hold more than pending() said: copy and pop what it holds
            final ByteBuffer head = transport.head();
            final int n = head.remaining();
            final ByteBuf out = ctx.alloc().ioBuffer(n);
            out.writeBytes(head);
            transport.pop(n);
            ctx.write(out);
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (ended || closing) {
            closeAfterFlush();
        }
    }

    private void scheduleTick() {
        if (closing || connection.getRemoteState() == EndpointState.UNINITIALIZED) {
            return;
        }
        final long now = nowMillis();
        final long next = transport.tick(now);
        if (next > 0 && (tick == null || next < tickAt)) {
            if (tick != null) {
                tick.cancel(false);
            }
            tickAt = next;
            tick = ctx.executor().schedule(() -> {
                tick = null;
                flushNow();
            }, Math.max(1, next - now), TimeUnit.MILLISECONDS);
        }
    }

    /** Milliseconds on a monotonic clock, never 0 (proton reads 0 as "no deadline"). */
    private static long nowMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - BASE_NANOS) + 1;
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** Closes the connection with an error condition: an OPEN (if none was sent) and a CLOSE carrying it. */
    void fail(final ErrorCondition condition) {
        if (closing) {
            return;
        }
        LOG.debug("AMQP connection {} closed: {}", remote(), condition);
        closing = true;
        endpoints.connectionLost();
        try {
            if (sasl.outcomeSent() || saslSkipped) {
                connection.setCondition(condition);
                if (connection.getLocalState() == EndpointState.UNINITIALIZED) {
                    connection.open();
                }
                connection.close();
            }
        } catch (RuntimeException e) {
            LOG.debug("AMQP close of {} failed", remote(), e);
        }
        flushNow(); // writes the CLOSE, then closes the channel

    }

    private void closeAfterFlush() {
        closing = true;
        cancelTimers();
        if (ctx.channel().isOpen()) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void closeNow() {
        closing = true;
        cancelTimers();
        ctx.close();
    }

    private void cancelTimers() {
        if (openTimeout != null) {
            openTimeout.cancel(false);
        }
        if (tick != null) {
            tick.cancel(false);
            tick = null;
        }
    }
}
