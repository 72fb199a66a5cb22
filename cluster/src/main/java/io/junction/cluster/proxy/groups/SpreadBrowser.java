package io.junction.cluster.proxy.groups;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Browsing (a JMS queue browser) a topic whose queues are spread over store groups, each logical queue segment after
 * segment, so a queue scaled from one group to another shows the old segment's messages, then the new one's.
 *
 * <p>Positions are logical offsets per logical queue (-1: not begun). A segment is browsed by its group alone, for its
 * one physical queue (every other queue of the group's topic is passed as already at its end); entering a segment
 * (at its logical start) the group starts where the consumer group's pops stand there, so what was consumed is not
 * read again. Messages the group stored outside the segment are left out.
 */
final class SpreadBrowser {
    /** A position past any queue's end: the group's browse looks at nothing there. */
    private static final long DONE = Long.MAX_VALUE;
    private final LiveGroupMap groups;
    private final Messaging metadata;
    private final PlacementBook book;

    SpreadBrowser(final LiveGroupMap groups, final PlacementBook book) {
        this.groups = groups;
        this.metadata = groups.values().iterator().next();
        this.book = book;
    }

    CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        final TopicPlacement placement = book.get(request.topic());
        if (placement == null) {
            return metadata.browse(request);
        }
        final long[] positions = new long[placement.queueCount()];
        Arrays.fill(positions, -1);
        if (request.positions() != null) {
            System.arraycopy(request.positions(), 0, positions, 0,
                    Math.min(positions.length, request.positions().length));
        }
        final Walk walk = new Walk(placement, request, positions);
        return walk.queue(0, true).thenApply(end -> new BrowseResult(walk.found, positions, end));
    }

    /** One browse: logical queue after logical queue, each segment after segment, up to the asked count. */
    private final class Walk {
        final TopicPlacement placement;
        final BrowseRequest request;
        final long[] positions;
        final List<StoredMessage> found = new ArrayList<>();

        Walk(final TopicPlacement placement, final BrowseRequest request, final long[] positions) {
            this.placement = placement;
            this.request = request;
            this.positions = positions;
        }

        /** Browses queue {@code q} and those after it; completes with whether every queue was looked at to its end. */
        CompletableFuture<Boolean> queue(final int q, final boolean endSoFar) {
            if (q == placement.queueCount()) {
                return CompletableFuture.completedFuture(endSoFar);
            }
            if (found.size() >= request.maxMessages()) {
                return CompletableFuture.completedFuture(false);
            }
            final QueueSegment segment = positions[q] < 0 ? placement.queue(q).get(0)
                    : placement.segmentFor(q, positions[q]);
            return segment(q, segment).thenCompose(end -> queue(q + 1, endSoFar && end));
        }

        /** Browses {@code segment} of queue {@code q} and those after it; completes with whether the queue ended. */
        private CompletableFuture<Boolean> segment(final int q, final QueueSegment segment) {
            final QueueSegment following = placement.next(q, segment);
            if (!groups.containsKey(segment.group())) {
                // A group forgotten since (nothing readable was left there): its segment reads as empty.
                return following == null ? CompletableFuture.completedFuture(true) : enter(q, following);
            }
            final int remaining = request.maxMessages() - found.size();
            if (remaining <= 0) {
                return CompletableFuture.completedFuture(false);
            }
            final Messaging group = groups.get(segment.group());
            final int physicalQueue = segment.physicalQueue();
            final int groupQueues = group.route(request.topic()).map(c -> c.queueCount()).orElse(0);
            if (groupQueues <= physicalQueue) {
                return following == null ? CompletableFuture.completedFuture(true) : enter(q, following);
            }
            final long[] asked = new long[groupQueues];
            Arrays.fill(asked, DONE);
            asked[physicalQueue] = positions[q] < 0 || positions[q] <= segment.logicalStart() ? -1
                    : segment.toPhysical(positions[q]);
            final int ordinal = groups.ordinal(segment.group());
            return group.browse(new BrowseRequest(request.group(), request.topic(), request.filter(), asked,
                    remaining)).thenCompose(r -> {
                        for (StoredMessage m : r.messages()) {
                            if (m.queueId() == physicalQueue && segment.holdsPhysical(m.queueOffset())) {
                                found.add(LogicalMessages.relabel(m, q, segment.toLogical(m.queueOffset()),
                                        GroupNumbering.tagged(ordinal, m.commitLogOffset())));
                            }
                        }
                        final long next = Math.max(segment.toLogical(r.positions()[physicalQueue]),
                                segment.logicalStart());
                        final boolean segmentDone = !segment.open() && next >= segment.sealedEnd();
                        positions[q] = segment.open() ? next : Math.min(next, segment.sealedEnd());
                        if (segmentDone && following != null) {
                            return enter(q, following);
                        }
                        // The group's browse looked at this one queue only: its end is this segment's.
                        return CompletableFuture.completedFuture(r.end() && following == null);
                    });
        }

        private CompletableFuture<Boolean> enter(final int q, final QueueSegment segment) {
            positions[q] = segment.logicalStart();
            return segment(q, segment);
        }
    }
}
