package io.junction.core.threads;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Work handed to one of the store's pools. A closed store's pools refuse new work; the caller then gets a future
 * failed with {@link StoreError#UNAVAILABLE} (retriable), never a {@link RejectedExecutionException} thrown at it. A
 * cluster node's front-ends call a store that a leader change is closing and reopening, and each protocol answers an
 * UNAVAILABLE store with its own retriable error.
 */
public final class StoreTasks {
    private StoreTasks() {
    }

    /** {@code work}'s value, computed on {@code pool}. */
    public static <T> CompletableFuture<T> supply(final Executor pool, final Supplier<T> work) {
        try {
            return CompletableFuture.supplyAsync(work, pool);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(closed(e));
        }
    }

    /** {@code work} run on {@code pool}. */
    public static CompletableFuture<Void> run(final Executor pool, final Runnable work) {
        try {
            return CompletableFuture.runAsync(work, pool);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(closed(e));
        }
    }

    /** Runs {@code work}, which completes {@code result}, on {@code pool}; fails {@code result} if the pool refuses. */
    public static void execute(final Executor pool, final Runnable work, final CompletableFuture<?> result) {
        try {
            pool.execute(work);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closed(e));
        }
    }

    private static StoreException closed(final RejectedExecutionException e) {
        return new StoreException(StoreError.UNAVAILABLE, "the store is closed (or reopening)", e);
    }
}
