package io.junction.cluster.proxy.groups;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Sends again a write that met a sealed queue: the queue was scaled and its writes moved to a new segment. The
 * metadata mirror is refreshed at once and the write goes to the logical queue's open segment as soon as the placement
 * shows another one; the scaler writes the placement right after the seal, so the wait is short. A write still finding
 * no new segment after {@link #PATIENCE_MILLIS} fails with the store's error, which front-ends answer as retriable.
 * Nothing reaches a sealed queue twice: the store refused it, so it was not stored there. A queue closed by scaling in
 * has no new segment: its writes go to an open queue instead ({@link #writable}).
 */
final class SealedQueueRetry {
    static final long PATIENCE_MILLIS = 5_000;
    private static final long PAUSE_MILLIS = 20;
    private static final Executor PAUSE = CompletableFuture.delayedExecutor(PAUSE_MILLIS, TimeUnit.MILLISECONDS);

    private final PlacementBook book;
    private final Supplier<CompletableFuture<Boolean>> metadataRefresh;
    /** The refresh under way: the many sends that meet one seal share it. */
    private final AtomicReference<CompletableFuture<Boolean>> refreshing = new AtomicReference<>();

    SealedQueueRetry(final PlacementBook book, final Supplier<CompletableFuture<Boolean>> metadataRefresh) {
        this.book = book;
        this.metadataRefresh = metadataRefresh;
    }

    /** Where a write goes: a logical queue and its open segment. */
    record Target(int queue, QueueSegment segment) {
    }

    /**
     * The queue a write aimed at {@code queue} goes to: itself while it is open; once closed (scaled in), the open
     * queue {@code queue mod writeQueueCount}, so producers whose routes still list closed queues go on without an
     * error and nothing is written to a closed queue.
     */
    static Target writable(final TopicPlacement placement, final int queue) {
        final int q = placement.closed(queue) ? queue % placement.writeQueueCount() : queue;
        return new Target(q, placement.openSegment(q));
    }

    /** Runs {@code write} on {@code target}, and again on the queue's new open segment when that one was sealed. */
    <T> CompletableFuture<T> retried(final String topic, final Target target,
                                     final Function<Target, CompletableFuture<T>> write) {
        return attempt(topic, target, write, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS));
    }

    private <T> CompletableFuture<T> attempt(final String topic, final Target target,
                                             final Function<Target, CompletableFuture<T>> write,
                                             final long deadline) {
        return write.apply(target).handle((result, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(result);
            }
            if (!sealed(failure) || System.nanoTime() - deadline > 0) {
                return CompletableFuture.<T>failedFuture(failure);
            }
            return nextTarget(topic, target, deadline)
                    .thenCompose(next -> next == null ? CompletableFuture.<T>failedFuture(failure)
                            : attempt(topic, next, write, deadline));
        }).thenCompose(f -> f);
    }

    /** Whether the topic has a placement, waiting for one (refreshing the mirror) up to {@link #PATIENCE_MILLIS}. */
    CompletableFuture<Boolean> placed(final String topic) {
        return placed(topic, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS));
    }

    private CompletableFuture<Boolean> placed(final String topic, final long deadline) {
        if (book.get(topic) != null) {
            return CompletableFuture.completedFuture(true);
        }
        if (System.nanoTime() - deadline > 0) {
            return CompletableFuture.completedFuture(false);
        }
        return refresh().thenComposeAsync(refreshed -> placed(topic, deadline), PAUSE);
    }

    /**
     * Where the write goes once the placement shows the sealed segment replaced (a new segment, or the queue closed
     * and another open queue taking its writes), or null past the deadline.
     */
    private CompletableFuture<Target> nextTarget(final String topic, final Target sealed, final long deadline) {
        final Target now = target(topic, sealed.queue());
        if (now != null && !now.segment().equals(sealed.segment())) {
            return CompletableFuture.completedFuture(now);
        }
        if (System.nanoTime() - deadline > 0) {
            return CompletableFuture.completedFuture(null);
        }
        return refresh().thenComposeAsync(refreshed -> {
            final Target after = target(topic, sealed.queue());
            return after != null && !after.segment().equals(sealed.segment()) ? CompletableFuture.completedFuture(after)
                    : nextTarget(topic, sealed, deadline);
        }, PAUSE);
    }

    private CompletableFuture<Boolean> refresh() {
        final CompletableFuture<Boolean> running = refreshing.get();
        if (running != null && !running.isDone()) {
            return running;
        }
        final CompletableFuture<Boolean> started = metadataRefresh.get().exceptionally(e -> false);
        refreshing.set(started);
        return started;
    }

    private Target target(final String topic, final int queue) {
        final TopicPlacement placement = book.get(topic);
        return placement != null && placement.hasQueue(queue) ? writable(placement, queue) : null;
    }

    static boolean sealed(final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof StoreException se && se.error() == StoreError.QUEUE_SEALED;
    }
}
