package io.junction.core.engine;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.log.LogFlusher;
import io.junction.core.pop.PopService;
import io.junction.core.queue.Dispatcher;
import io.junction.core.stats.TrafficCounters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Pops and browses as the facade serves them: refused while the store is not running, pops counted in the traffic
 * figures, and a browse held until what was acknowledged to senders is indexed.
 */
final class PopReads {
    private final Availability availability;
    private final PopService pops;
    private final TrafficCounters traffic;
    private final LogFlusher flusher;
    private final Dispatcher dispatcher;
    private final ScheduledExecutorService timer;

    PopReads(final Availability availability, final PopService pops, final TrafficCounters traffic,
             final LogFlusher flusher, final Dispatcher dispatcher, final ScheduledExecutorService timer) {
        this.availability = availability;
        this.pops = pops;
        this.traffic = traffic;
        this.flusher = flusher;
        this.dispatcher = dispatcher;
        this.timer = timer;
    }

    CompletableFuture<PopResult> pop(final PopRequest request) {
        if (!availability.running()) {
            return Availability.refused();
        }
        final CompletableFuture<PopResult> popped = pops.pop(request);
        // Counted on the side: the caller gets the pop's own future, whose cancelling frees a parked pop.
        popped.thenAccept(r -> traffic.read(request.group(), request.topic(), r.messages().size()));
        return popped;
    }

    /**
     * Browses once every message whose send completed before the call is indexed (queue entries are built just after
     * a send is acknowledged): a client that sends and then browses sees what it sent.
     */
    CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        if (!availability.running()) {
            return Availability.refused();
        }
        return indexedUpTo(flusher.visibleOffset()).thenCompose(x -> pops.browse(request));
    }

    /** Completes once the dispatcher has indexed the log below {@code offset} (after a second at most). */
    private CompletableFuture<Void> indexedUpTo(final long offset) {
        if (dispatcher.dispatchedOffset() >= offset) {
            return CompletableFuture.completedFuture(null);
        }
        final CompletableFuture<Void> indexed = new CompletableFuture<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        dispatcher.wake();
        timer.schedule(new Runnable() {
            @Override
            public void run() {
                if (dispatcher.dispatchedOffset() >= offset || System.nanoTime() > deadline) {
                    indexed.complete(null);
                } else {
                    timer.schedule(this, 1, TimeUnit.MILLISECONDS);
                }
            }
        }, 1, TimeUnit.MILLISECONDS);
        return indexed;
    }
}
