package io.junction.core.pop;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.filter.TagFilter;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.threads.StoreTasks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Looks at what a group's pops would hand out next without taking anything (a JMS queue browser): it reads the
 * queues from where the group's pops stand and skips what the group consumed or has in flight.
 */
final class PopBrowser {
    private final PopStore store;
    private final PopQueues queues;

    PopBrowser(final PopStore store, final PopQueues queues) {
        this.store = store;
        this.queues = queues;
    }

    /**
     * Looks at what the group's pops would hand out next, queue by queue, without taking anything: messages neither
     * done nor in flight. For in-place groups that is exact (messages given back included); for others it is what no
     * pop has reached yet.
     */
    CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        final Optional<TopicConfig> topic = store.topic(request.topic());
        if (topic.isEmpty()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.TOPIC_NOT_FOUND,
                    "topic " + request.topic() + " does not exist"));
        }
        final CompletableFuture<BrowseResult> result = new CompletableFuture<>();
        StoreTasks.execute(store.readExecutor(), () -> {
            try {
                result.complete(browse(request, topic.get()));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, result);
        return result;
    }

    private BrowseResult browse(final BrowseRequest request, final TopicConfig topic) {
        final int queueCount = topic.queueCount();
        final long[] positions = new long[queueCount];
        Arrays.fill(positions, -1);
        if (request.positions() != null) {
            System.arraycopy(request.positions(), 0, positions, 0, Math.min(queueCount, request.positions().length));
        }
        final List<StoredMessage> found = new ArrayList<>();
        final int max = Math.max(1, request.maxMessages());
        int scanned = 0;
        boolean end = true;
        for (int queueId = 0; queueId < queueCount; queueId++) {
            final PopStore.QueueRef q = new PopStore.QueueRef(topic.name(), queueId);
            final PopQueues.State state = queues.find(request.group(), q.topic(), queueId);
            if (positions[queueId] < 0) {
                positions[queueId] = queues.firstNotTaken(request.group(), q, state);
            }
            while (found.size() < max && scanned < PopService.IN_PLACE_SCAN_LIMIT) {
                final long from = positions[queueId];
                final PullResult read = store.read(q.topic(), queueId, from, Math.min(32, max - found.size()), null);
                final long next = Math.max(read.nextOffset(), from);
                if (next == from) {
                    break; // the end of the queue
                }
                positions[queueId] = next;
                for (StoredMessage m : read.messages()) {
                    scanned++;
                    if (!queues.taken(state, request.group(), q, m.queueOffset())
                            && request.filter().matchesTagHash(TagFilter.tagHash(m.tag()))
                            && request.filter().matches(m.properties(), m.bornTimestamp())) {
                        found.add(m);
                    }
                }
            }
            end &= positions[queueId] >= store.maxOffset(q.topic(), queueId);
        }
        return new BrowseResult(found, positions, end);
    }
}
