package io.junction.remoting.processor;

import io.junction.remoting.protocol.RemotingCommand;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;

/**
 * Answers requests of some codes. Called on the connection's event loop: it must not block; anything that may touch
 * the disk goes through the asynchronous facade and completes the future later.
 */
@FunctionalInterface
public interface RequestProcessor {
    /**
     * @return the response, or a future completing with null when nothing is to be sent (oneway requests);
     *     cancelling it gives the request up (a long poll frees its parked read, a parked POP takes nothing)
     */
    CompletableFuture<RemotingCommand> process(Channel channel, RemotingCommand request);

    /** Whether {@code request} may wait in the broker for messages (a long poll) before it is answered. */
    default boolean waits(final RemotingCommand request) {
        return false;
    }
}
