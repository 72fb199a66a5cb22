package io.junction.core.engine;

import io.junction.core.RecallHandle;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.threads.StoreTasks;
import io.junction.core.timer.TimerMessages;
import io.junction.core.timer.TimerService;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Recalls a delayed message by the handle its send returned. The handle comes from a client, so the parked record
 * it names is read and checked to be that very message, still parked, before the timer service recalls it.
 */
final class DelayedRecall {
    private final MessageQueries queries;
    private final TimerService timers;
    private final Executor readPool;

    DelayedRecall(final MessageQueries queries, final TimerService timers, final Executor readPool) {
        this.queries = queries;
        this.timers = timers;
        this.readPool = readPool;
    }

    CompletableFuture<Void> recall(final RecallHandle handle) {
        // The handle names the parked record's log offset: read that one record and check it is the message meant.
        return StoreTasks.supply(readPool, () -> queries.at(handle.logOffset()))
                .exceptionally(failure -> Optional.empty())
                .thenCompose(found -> {
                    final StoredMessage parked = found.orElse(null);
                    if (parked == null || !TimerService.TOPIC.equals(parked.topic())
                            || TimerMessages.recalledId(parked) != null
                            || !handle.uniqueId().equals(parked.uniqueId())
                            || !handle.topic().equals(parked.property(MessageProperties.REAL_TOPIC))
                            || TimerMessages.deliverAt(parked) != handle.deliverAt()) {
                        return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                                "no delayed message of topic " + handle.topic() + " has this recall handle"));
                    }
                    return timers.recall(parked);
                });
    }
}
