package io.junction.remoting.security;

import io.junction.remoting.protocol.RemotingCommand;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What one request code needs: the {@link Demand}s a request of it makes (all must be met), and for listings a filter
 * that keeps only what the caller may see in the response.
 *
 * @param demands what a request needs
 * @param filter  narrows a successful response to the caller's view, or null when the response is answered as is
 * @param waits   a request that may wait for messages (a long-polling pull or POP): when the rules changed while it
 *                waited, its demands are decided again before the messages go out
 */
record Permission(Demands demands, ResponseFilter filter, boolean waits) {

    /** The demands of one request; a future because some need a store look-up (the topic of a message by offset). */
    @FunctionalInterface
    interface Demands {
        CompletableFuture<List<Demand>> of(RemotingCommand request);
    }

    /** Rewrites a successful response so it shows only what {@code visible} accepts. */
    @FunctionalInterface
    interface ResponseFilter {
        RemotingCommand apply(RemotingCommand response, Predicate<Demand> visible);
    }

    /** Demands read from the request alone, without a look-up. */
    static Permission of(final Function<RemotingCommand, List<Demand>> demands) {
        return new Permission(r -> CompletableFuture.completedFuture(demands.apply(r)), null, false);
    }

    /** Demands read from the request alone, of a request that may wait for messages. */
    static Permission ofWaiting(final Function<RemotingCommand, List<Demand>> demands) {
        return new Permission(r -> CompletableFuture.completedFuture(demands.apply(r)), null, true);
    }
}
