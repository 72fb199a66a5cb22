package io.junction.remoting;

import io.junction.remoting.protocol.RemotingCommand;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests the broker sends to a client and waits to hear back on (a reply pushed to its requester): each gets an
 * opaque of its own, and the client's response, matched by opaque, completes its future. The future fails when the
 * time runs out or the connection closes first, so a caller never waits on a client that is gone.
 */
public final class ClientCalls {
    private final AtomicInteger opaques;
    private final Map<Integer, CompletableFuture<RemotingCommand>> waiting = new ConcurrentHashMap<>();

    /** @param opaques the broker's counter for requests it sends (shared with its oneway notices) */
    public ClientCalls(final AtomicInteger opaques) {
        this.opaques = opaques;
    }

    /** Sends {@code request} (its opaque is set here) and completes with the client's response. */
    public CompletableFuture<RemotingCommand> call(final Channel channel, final RemotingCommand request,
                                                   final long timeoutMillis) {
        final int opaque = opaques.incrementAndGet();
        request.opaque(opaque);
        final CompletableFuture<RemotingCommand> response = new CompletableFuture<>();
        waiting.put(opaque, response);
        final ChannelFutureListener closed = f -> response.completeExceptionally(
                new IllegalStateException("the connection to " + channel.remoteAddress() + " closed"));
        channel.closeFuture().addListener(closed);
        final var timeout = channel.eventLoop().schedule(() -> response.completeExceptionally(new TimeoutException(
                "no answer from " + channel.remoteAddress() + " in " + timeoutMillis + " ms")),
                timeoutMillis, TimeUnit.MILLISECONDS);
        response.whenComplete((r, e) -> {
            waiting.remove(opaque);
            timeout.cancel(false);
            channel.closeFuture().removeListener(closed);
        });
        channel.writeAndFlush(request).addListener(f -> {
            if (!f.isSuccess()) {
                response.completeExceptionally(f.cause());
            }
        });
        return response;
    }

    /** A client's response: completes the call it answers; false when none waits for it (a late answer). */
    boolean answered(final RemotingCommand response) {
        final CompletableFuture<RemotingCommand> call = waiting.get(response.opaque());
        return call != null && call.complete(response);
    }
}
