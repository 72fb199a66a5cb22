package io.junction.remoting;

import io.junction.core.Messaging;
import io.junction.remoting.processor.RequestProcessor;
import io.junction.remoting.processor.Responses;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RemotingDecoder;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.security.AccessGuard;
import io.junction.remoting.security.Admission;
import io.junction.remoting.security.ConnectionUsers;
import io.junction.remoting.security.QuotaGate;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Principal;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatches requests to processors by code and writes their responses (never for oneway requests). Shared by all
 * connections; per-connection state lives in channel attributes. Closes a connection on a broken frame, an idle
 * timeout, or a malformed header it cannot answer.
 */
@ChannelHandler.Sharable
final class RemotingHandler extends SimpleChannelInboundHandler<RemotingCommand> {
    private static final Logger LOG = LoggerFactory.getLogger(RemotingHandler.class);

    private static final AttributeKey<AtomicInteger> IN_FLIGHT =
            AttributeKey.valueOf("junction.remoting.inflight");

    private final Map<Integer, RequestProcessor> processors;
    private final int maxInFlight;
    private final ClientChannels channels;
    private final ClientCalls calls;
    private final Messaging messaging;
    /** Null when security is off: then no request is verified and the path below is the open one. */
    private final AccessGuard guard;
    private final QuotaGate quotas;
    /** Null when security is off. */
    private final ConnectionUsers users;

    RemotingHandler(final Map<Integer, RequestProcessor> processors, final ClientChannels channels,
                    final ClientCalls calls, final Messaging messaging, final int maxInFlight,
                    final AccessGuard guard, final QuotaGate quotas, final AccessControl access) {
        this.processors = Map.copyOf(processors);
        this.maxInFlight = maxInFlight;
        this.channels = channels;
        this.calls = calls;
        this.messaging = messaging;
        this.guard = guard;
        this.quotas = quotas;
        this.users = guard == null ? null : new ConnectionUsers(access, this::userChanged);
    }

    /** The request codes dispatched to a processor. */
    Set<Integer> codes() {
        return processors.keySet();
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final RemotingCommand request) {
        if (request.isResponse()) {
            calls.answered(request); // or an answer to a oneway notice: nothing waits for those
            return;
        }
        final Channel channel = ctx.channel();
        if (request.code() == RemotingDecoder.MALFORMED) {
            if (request.isOneway()) {
                return;
            }
            LOG.debug("malformed header from {}: {}", channel.remoteAddress(), request.remark());
            channel.writeAndFlush(Responses.error(request, ResponseCode.SYSTEM_ERROR,
                    "malformed header: " + request.remark()));
            return;
        }
        final RequestProcessor processor = processors.get(request.code());
        if (guard != null) {
            admitThenDispatch(channel, request, processor);
            return;
        }
        if (processor == null) {
            reply(channel, request, Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
            return;
        }
        dispatch(channel, request, processor, null);
    }

    /**
     * Security on: every request is verified and authorized on its own before it reaches a processor. A refused
     * oneway request is dropped (the policy has counted the failure). The verdict usually comes at once; when it needed
     * a store look-up, the request goes back to its channel's event loop, where processors expect to run.
     */
    private void admitThenDispatch(final Channel channel, final RemotingCommand request,
                                   final RequestProcessor processor) {
        CompletableFuture<Admission> verdict;
        try {
            verdict = guard.admit(channel, request);
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        verdict.whenComplete((admission, failure) -> {
            final String refusal = failure == null && admission.allowed() && quotas != null
                    ? quotas.refusal(channel, request, admission.principal()) : null;
            if (failure != null) {
                LOG.debug("request {} could not be authorized", request, failure);
                reply(channel, request, Responses.failure(request, failure));
            } else if (!admission.allowed()) {
                reply(channel, request, Responses.error(request, admission.code(), admission.remark()));
            } else if (refusal != null) {
                reply(channel, request, Responses.error(request, ResponseCode.SYSTEM_BUSY, refusal));
            } else if (processor == null) {
                reply(channel, request, Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                        " request type " + request.code() + " not supported"));
            } else if (channel.eventLoop().inEventLoop()) {
                dispatch(channel, request, processor, admission);
            } else {
                channel.eventLoop().execute(() -> dispatch(channel, request, processor, admission));
            }
        });
    }

    private void dispatch(final Channel channel, final RemotingCommand request, final RequestProcessor processor,
                          final Admission admission) {
        AtomicInteger inFlight = channel.attr(IN_FLIGHT).get();
        if (inFlight == null) {
            inFlight = new AtomicInteger();
            channel.attr(IN_FLIGHT).set(inFlight); // only this channel's event loop reads requests
        }
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            reply(channel, request, Responses.error(request, ResponseCode.SYSTEM_BUSY,
                    "[OVERLOAD] more than " + maxInFlight + " requests in flight on this connection, try later"));
            return;
        }
        final AtomicInteger counter = inFlight;
        if (admission != null && users != null) {
            users.actingAs(channel, admission.principal());
            ClientChannels.actingAs(channel, admission.principal().name());
        }
        CompletableFuture<RemotingCommand> future;
        try {
            future = processor.process(channel, request);
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        final WaitingRequests.Waiting waiting = processor.waits(request) && !future.isDone()
                ? WaitingRequests.park(channel, request, admission, future) : null;
        future.whenComplete((response, failure) -> {
            counter.decrementAndGet();
            if (waiting != null && !waiting.claim()) { // answered already: its user changed while it waited
                if (response != null && response.payload() != null) {
                    response.payload().release();
                }
            } else if (failure != null) {
                LOG.debug("request {} failed", request, failure);
                reply(channel, request, Responses.failure(request, failure));
            } else if (response != null) {
                reply(channel, request, admission == null ? response : shaped(request, admission, response));
            }
        });
    }

    /**
     * One of the users a connection acted for changed (on its event loop). Its long polls that the change refuses are
     * answered NO_PERMISSION now rather than when messages come. A user that may no longer act at all also takes the
     * connection's clients out of their groups (the others rebalance at once); the connection itself stays open, so
     * a request already on its way is answered NO_PERMISSION like every later one, not lost with a closed socket.
     */
    private void userChanged(final Channel channel, final Principal principal, final boolean revoked) {
        for (WaitingRequests.Waiting w : WaitingRequests.of(channel, principal.name())) {
            final String refusal = revoked ? "[AUTHENTICATION] user " + principal.name()
                    + " was deleted, disabled or moved to another namespace" : w.admission().refusalNow();
            if (refusal != null && w.claim()) {
                w.cancel();
                reply(channel, w.request(), Responses.error(w.request(), ResponseCode.NO_PERMISSION, refusal));
            }
        }
        if (revoked) {
            leaveGroups(channels.forgetRegistrations(channel));
        }
    }

    private void leaveGroups(final List<ClientChannels.Registration> registrations) {
        for (ClientChannels.Registration r : registrations) {
            if (r.consumer()) {
                messaging.consumers().unregister(r.group(), r.clientId());
            }
        }
    }

    /**
     * The response as the caller may have it: narrowed to its view, or, for a pull or POP that waited while the rules
     * changed and no longer allow it, NO_PERMISSION instead of the messages (a pull's offset does not move; what a
     * POP took becomes visible again after its invisible time).
     */
    private static RemotingCommand shaped(final RemotingCommand request, final Admission admission,
                                          final RemotingCommand response) {
        final String refusal = admission.refusalNow();
        if (refusal != null) {
            if (response.payload() != null) {
                response.payload().release();
            }
            return Responses.error(request, ResponseCode.NO_PERMISSION, refusal);
        }
        return narrowed(request, admission, response);
    }

    private static RemotingCommand narrowed(final RemotingCommand request, final Admission admission,
                                            final RemotingCommand response) {
        try {
            return admission.shape(response);
        } catch (RuntimeException e) {
            LOG.debug("response to {} could not be filtered", request, e);
            return Responses.failure(request, e);
        }
    }

    private static void reply(final Channel channel, final RemotingCommand request, final RemotingCommand response) {
        if (request.isOneway()) {
            if (response.payload() != null) {
                response.payload().release();
            }
            return;
        }
        if (!channel.isActive()) {
            if (response.payload() != null) {
                response.payload().release();
            }
            return;
        }
        channel.writeAndFlush(response);
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        // Back-pressure: stop reading requests while responses pile up above the high water mark.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        WaitingRequests.closed(ctx.channel());
        leaveGroups(channels.channelClosed(ctx.channel()));
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        if (cause instanceof IOException) {
            // The peer reset or left: routine, and a client restart storm must not flood the log.
            LOG.debug("closing {}: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            // A frame this broker could not take, or a defect of ours: the client sees only a closed connection.
            LOG.warn("closing {}: {}", ctx.channel().remoteAddress(), cause.toString());
        }
        ctx.close();
    }
}
