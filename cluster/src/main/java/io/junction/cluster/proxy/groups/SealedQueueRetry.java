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
 * Nothing reaches a sealed queue twice: the store refused it, so it was not stored there.
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

    /** Runs {@code write} on {@code open}, and again on the queue's new open segment when that one was sealed. */
    <T> CompletableFuture<T> retried(final String topic, final int queue, final QueueSegment open,
                                     final Function<QueueSegment, CompletableFuture<T>> write) {
        return attempt(topic, queue, open, write, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS));
    }

    private <T> CompletableFuture<T> attempt(final String topic, final int queue, final QueueSegment open,
                                             final Function<QueueSegment, CompletableFuture<T>> write,
                                             final long deadline) {
        return write.apply(open).handle((result, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(result);
            }
            if (!sealed(failure) || System.nanoTime() - deadline > 0) {
                return CompletableFuture.<T>failedFuture(failure);
            }
            return nextSegment(topic, queue, open, deadline)
                    .thenCompose(next -> next == null ? CompletableFuture.<T>failedFuture(failure)
                            : attempt(topic, queue, next, write, deadline));
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

    /** The queue's open segment once it is not {@code sealed} any more, or null past the deadline. */
    private CompletableFuture<QueueSegment> nextSegment(final String topic, final int queue,
                                                       final QueueSegment sealed, final long deadline) {
        final QueueSegment now = openSegment(topic, queue);
        if (now != null && !now.equals(sealed)) {
            return CompletableFuture.completedFuture(now);
        }
        if (System.nanoTime() - deadline > 0) {
            return CompletableFuture.completedFuture(null);
        }
        return refresh().thenComposeAsync(refreshed -> {
            final QueueSegment after = openSegment(topic, queue);
            return after != null && !after.equals(sealed) ? CompletableFuture.completedFuture(after)
                    : nextSegment(topic, queue, sealed, deadline);
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

    private QueueSegment openSegment(final String topic, final int queue) {
        final TopicPlacement placement = book.get(topic);
        return placement != null && placement.hasQueue(queue) ? placement.openSegment(queue) : null;
    }

    static boolean sealed(final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof StoreException se && se.error() == StoreError.QUEUE_SEALED;
    }
}
