package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Offset reads of a logical queue through its segments: a logical offset is read in the segment holding it (its
 * group, its physical queue, the physical offset), and the answer comes back in logical offsets. A read that reaches
 * a sealed segment's end goes on in the next segment, so an offset consumer reads one monotonic sequence across the
 * seam; only the open segment waits for arrivals.
 */
final class SegmentReader {
    private final Function<String, Messaging> groups;
    private final Predicate<String> known;
    private final ToIntFunction<String> ordinals;

    /**
     * @param known    whether a group is reached: a sealed segment on a group forgotten since (removed once nothing
     *                 there was readable) reads as empty, and reads go on in the next segment
     * @param ordinals each group's number, which the commit-log offsets handed out carry ({@link GroupNumbering})
     */
    SegmentReader(final Function<String, Messaging> groups, final Predicate<String> known,
                  final ToIntFunction<String> ordinals) {
        this.groups = groups;
        this.known = known;
        this.ordinals = ordinals;
    }

    CompletableFuture<PullResult> pull(final TopicPlacement placement, final PullRequest request) {
        final int queue = request.queueId();
        if (!placement.hasQueue(queue)) {
            return CompletableFuture.completedFuture(PullResult.empty(PullStatus.NO_SUCH_QUEUE, request.offset(), 0,
                    0));
        }
        return pullFrom(placement, request, placement.segmentFor(queue, request.offset()), request.offset());
    }

    private CompletableFuture<PullResult> pullFrom(final TopicPlacement placement, final PullRequest request,
                                                   final QueueSegment segment, final long logical) {
        final int queue = request.queueId();
        if (!segment.open() && !known.test(segment.group())) {
            final QueueSegment following = placement.next(queue, segment);
            return following != null ? pullFrom(placement, request, following, segment.sealedEnd())
                    : CompletableFuture.completedFuture(PullResult.empty(PullStatus.NO_NEW_MESSAGE,
                            segment.sealedEnd(), segment.sealedEnd(), segment.sealedEnd()));
        }
        final long physical = segment.toPhysical(Math.max(logical, segment.logicalStart()));
        final CompletableFuture<PullResult> read = groups.apply(segment.group()).pull(new PullRequest(request.group(),
                request.topic(), segment.physicalQueue(), physical, request.maxMessages(), request.filter(),
                segment.open() ? request.maxWaitMillis() : 0));
        final CompletableFuture<PullResult> result = read.thenCompose(r -> {
            final List<StoredMessage> messages = new ArrayList<>(r.messages().size());
            final int ordinal = ordinals.applyAsInt(segment.group());
            for (StoredMessage m : r.messages()) {
                if (segment.holdsPhysical(m.queueOffset())) {
                    messages.add(LogicalMessages.relabel(m, queue, segment.toLogical(m.queueOffset()),
                            GroupNumbering.tagged(ordinal, m.commitLogOffset())));
                }
            }
            long next = segment.toLogical(r.nextOffset());
            if (!segment.open()) {
                next = Math.min(next, segment.sealedEnd());
                final QueueSegment following = placement.next(queue, segment);
                if (messages.isEmpty() && next >= segment.sealedEnd() && following != null) {
                    return pullFrom(placement, request, following, segment.sealedEnd());
                }
            }
            final long min = minOffset(placement, queue, segment, r.minOffset());
            final long max = segment.open() ? segment.toLogical(r.maxOffset()) : maxOffset(placement, request.topic(),
                    queue);
            final PullStatus status = messages.isEmpty() && r.status() == PullStatus.FOUND
                    ? PullStatus.NO_MATCHED_MESSAGE : r.status();
            return CompletableFuture.completedFuture(new PullResult(status, messages, next, min, max));
        });
        // A client that leaves cancels its waiting read: the group's wait is dropped too.
        result.whenComplete((r, e) -> {
            if (result.isCancelled()) {
                read.cancel(true);
            }
        });
        return result;
    }

    private long minOffset(final TopicPlacement placement, final int queue, final QueueSegment read,
                           final long readMin) {
        final QueueSegment first = placement.queue(queue).get(0);
        return first.equals(read) ? first.toLogical(Math.max(readMin, first.physicalStart()))
                : minOffset(placement, placement.topic(), queue);
    }

    /** The smallest readable logical offset: the first segment's, from its group's view. */
    long minOffset(final TopicPlacement placement, final String topic, final int queue) {
        QueueSegment first = placement.queue(queue).get(0);
        while (!first.open() && !known.test(first.group()) && placement.next(queue, first) != null) {
            first = placement.next(queue, first);
        }
        final long physical = groups.apply(first.group()).minOffset(topic, first.physicalQueue());
        return first.toLogical(Math.max(physical, first.physicalStart()));
    }

    /** The logical offset the next message gets: the open segment's end (a closed queue's: its sealed end). */
    long maxOffset(final TopicPlacement placement, final String topic, final int queue) {
        final QueueSegment open = placement.openSegment(queue);
        if (!open.open()) {
            return open.sealedEnd();
        }
        final long physical = groups.apply(open.group()).maxOffset(topic, open.physicalQueue());
        return open.toLogical(Math.max(physical, open.physicalStart()));
    }

    /** The first logical offset stored at or after a time: the first segment whose answer lies inside it. */
    CompletableFuture<Long> searchOffset(final TopicPlacement placement, final String topic, final int queue,
                                         final long timestamp) {
        return searchFrom(placement, topic, queue, placement.queue(queue).get(0), timestamp);
    }

    private CompletableFuture<Long> searchFrom(final TopicPlacement placement, final String topic, final int queue,
                                               final QueueSegment segment, final long timestamp) {
        return groups.apply(segment.group()).searchOffset(topic, segment.physicalQueue(), timestamp)
                .thenCompose(physical -> {
                    final QueueSegment following = placement.next(queue, segment);
                    if (!segment.open() && physical >= segment.physicalEnd() && following != null) {
                        return searchFrom(placement, topic, queue, following, timestamp);
                    }
                    final long logical = segment.toLogical(Math.max(physical, segment.physicalStart()));
                    return CompletableFuture.completedFuture(segment.open() ? logical
                            : Math.min(logical, segment.sealedEnd()));
                });
    }

    CompletableFuture<Long> earliestStoreTime(final TopicPlacement placement, final String topic, final int queue) {
        final QueueSegment first = placement.queue(queue).get(0);
        return groups.apply(first.group()).earliestStoreTime(topic, first.physicalQueue());
    }
}
