package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.stats.TrafficCounters;
import io.junction.core.threads.StoreTasks;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Pulls from one queue: read on the reader pool (never the caller's event loop) or, for a long poll at the end of
 * its queue, parked in {@link LongPollWaiters} until the queue gets an entry or the wait ends.
 */
final class PullPath {
    private final Availability availability;
    private final Function<String, Optional<TopicConfig>> topicLookup;
    private final ConsumeQueueStore queues;
    private final QueueReader reader;
    private final LongPollWaiters waiters;
    private final Executor readPool;
    private final StoreObserver observer;
    private final TrafficCounters traffic;
    /** Whether a queue is sealed: a read at its end never waits, nothing more will come. */
    private final BiPredicate<String, Integer> sealed;

    PullPath(final Availability availability, final Function<String, Optional<TopicConfig>> topicLookup,
             final ConsumeQueueStore queues, final QueueReader reader, final LongPollWaiters waiters,
             final Executor readPool, final StoreObserver observer, final TrafficCounters traffic,
             final BiPredicate<String, Integer> sealed) {
        this.sealed = sealed;
        this.availability = availability;
        this.topicLookup = topicLookup;
        this.queues = queues;
        this.reader = reader;
        this.waiters = waiters;
        this.readPool = readPool;
        this.observer = observer;
        this.traffic = traffic;
    }

    CompletableFuture<PullResult> pull(final PullRequest request) {
        return pull(request, Function.identity(), unused -> { }, false);
    }

    /**
     * A pull whose records are read into this thread's {@link LendingMemory} and lent to {@code reader}; an answer
     * the cancelled future cannot take goes to {@code dropped}.
     */
    <R> CompletableFuture<R> pullLent(final PullRequest request, final Function<PullResult, R> reader,
                                      final Consumer<? super R> dropped) {
        return pull(request, reader, dropped, true);
    }

    private <R> CompletableFuture<R> pull(final PullRequest request, final Function<PullResult, R> handOver,
                                          final Consumer<? super R> dropped, final boolean lent) {
        if (!availability.running()) {
            return Availability.refused();
        }
        final Optional<TopicConfig> topic = topicLookup.apply(request.topic());
        if (topic.isEmpty() || request.queueId() < 0 || request.queueId() >= topic.get().queueCount()) {
            return CompletableFuture.completedFuture(PullResult.empty(PullStatus.NO_SUCH_QUEUE, 0, 0, 0))
                    .thenApply(handOver);
        }
        if (!topic.get().readable()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.PERMISSION_DENIED,
                    "topic " + request.topic() + " is not readable"));
        }
        final Read<R> read = new Read<>(request, handOver, dropped, lent, new CompletableFuture<>());
        final CompletableFuture<R> result = read.result();
        // A reader at the end of its queue (a caught-up consumer pulling again) parks at once, on the caller's
        // thread: parking only queues it, and a read task that would find nothing cost a hand-over to a reading
        // thread and its wake-up for every message of a fan-out.
        if (request.maxWaitMillis() > 0 && queues.maxOffset(request.topic(), request.queueId()) == request.offset()
                && !sealed.test(request.topic(), request.queueId()) && park(read)) {
            return result;
        }
        StoreTasks.execute(readPool, () -> readOrPark(read, true), result);
        return result;
    }

    /**
     * One pull: what it asks, what its answer is handed to (and where an answer nobody takes goes), whether its
     * records are read into lent memory, and the future the answer completes.
     */
    private record Read<R>(PullRequest request, Function<PullResult, R> handOver, Consumer<? super R> dropped,
                           boolean lent, CompletableFuture<R> result) {
    }

    /** Parks a pull until its queue gets an entry; false when too many reads are parked already. */
    private <R> boolean park(final Read<R> read) {
        final PullRequest request = read.request();
        final CompletableFuture<R> result = read.result();
        final LongPollWaiters.Parked parked = waiters.park(request.topic(), request.queueId(),
                request.maxWaitMillis(), () -> readOrPark(read, false));
        if (parked == null) {
            return false;
        }
        // A reader that gives up (cancels the future: its client left) frees the parked read now.
        result.whenComplete((x, e) -> {
            if (result.isCancelled()) {
                parked.cancel();
            }
        });
        // An entry may have landed (or the queue been sealed) between the look at the queue and the parking: look
        // once more.
        if (queues.maxOffset(request.topic(), request.queueId()) > request.offset()
                || sealed.test(request.topic(), request.queueId())) {
            waiters.arrived(request.topic(), request.queueId());
        }
        return true;
    }

    private <R> void readOrPark(final Read<R> read, final boolean mayPark) {
        final PullRequest request = read.request();
        final CompletableFuture<R> result = read.result();
        try {
            final PullResult r = read.lent()
                    ? reader.read(request, LendingMemory.ofThisThread(), false) : reader.read(request);
            if (r.status() == PullStatus.NO_NEW_MESSAGE && mayPark && request.maxWaitMillis() > 0
                    && !sealed.test(request.topic(), request.queueId())
                    && availability.running() && park(read)) {
                return;
            }
            if (r.status() == PullStatus.FOUND) {
                long bytes = 0;
                for (StoredMessage m : r.messages()) {
                    bytes += m.size();
                }
                observer.messagesDelivered(request.topic(), r.messages().size(), bytes);
            }
            traffic.read(request.group(), request.topic(),
                    r.status() == PullStatus.FOUND ? r.messages().size() : 0);
            if (result.isDone()) {
                return; // cancelled while reading: nobody takes an answer
            }
            // Lent records are valid until this thread's next lent read: handed over here, before it returns.
            final R answer = read.handOver().apply(r);
            if (!result.complete(answer)) {
                read.dropped().accept(answer);
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }
}
