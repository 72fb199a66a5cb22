package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.message.StoredMessage;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Reads a core queue from an offset to its end, page by page, for what the front-end marked on stored messages:
 * recovery of an interrupted transaction commit and of idempotent producers' sequences after a restart.
 */
final class PartitionScan {
    /** The core group the scans read as (reads do not move its offsets). */
    static final String READER = "%KAFKA%SCAN";
    private static final int PAGE = 256;

    private PartitionScan() {
    }

    /** Hands each message of the queue from {@code from} to its end to {@code each}; completes at the end. */
    static CompletableFuture<Void> scan(final Messaging messaging, final String topic, final int queue,
                                        final long from, final Consumer<StoredMessage> each) {
        if (from >= messaging.maxOffset(topic, queue)) {
            return CompletableFuture.completedFuture(null);
        }
        return messaging.pull(new PullRequest(READER, topic, queue, from, PAGE, null, 0)).thenCompose(r -> {
            r.messages().forEach(each);
            if (r.status() == PullStatus.NO_SUCH_QUEUE || r.nextOffset() <= from) {
                return CompletableFuture.completedFuture(null);
            }
            return scan(messaging, topic, queue, r.nextOffset(), each);
        });
    }
}
