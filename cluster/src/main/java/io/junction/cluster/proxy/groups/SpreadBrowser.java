package io.junction.cluster.proxy.groups;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Browsing (a JMS queue browser) a topic whose queues are spread over store groups. */
final class SpreadBrowser {
    private final LiveGroupMap groups;
    private final Messaging metadata;
    private final PlacementBook book;

    SpreadBrowser(final LiveGroupMap groups, final PlacementBook book) {
        this.groups = groups;
        this.metadata = groups.values().iterator().next();
        this.book = book;
    }

    /**
     * Browses group after group (in placement order); positions are the logical queues'. Segments made at creation
     * map queue for queue; a queue's later segments are not browsed yet.
     */
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
        return browseFrom(placement, request, placement.groups().stream().filter(groups::containsKey).toList(), 0,
                new ArrayList<>(), positions, true);
    }

    private CompletableFuture<BrowseResult> browseFrom(final TopicPlacement placement, final BrowseRequest request,
                                                       final List<String> order, final int index,
                                                       final List<StoredMessage> found, final long[] positions,
                                                       final boolean end) {
        final int remaining = request.maxMessages() - found.size();
        if (index == order.size() || remaining <= 0) {
            return CompletableFuture.completedFuture(new BrowseResult(found, positions,
                    end && index == order.size()));
        }
        final String name = order.get(index);
        final BrowseRequest asked = new BrowseRequest(request.group(), request.topic(), request.filter(), positions,
                remaining);
        return groups.get(name).browse(asked).thenCompose(r -> {
            for (int q = 0; q < placement.queueCount(); q++) {
                final QueueSegment open = placement.openSegment(q);
                if (open.group().equals(name) && open.identity(q) && q < r.positions().length) {
                    positions[q] = r.positions()[q];
                }
            }
            final int ordinal = groups.ordinal(name);
            r.messages().forEach(m -> found.add(LogicalMessages.fromGroup(placement, name, ordinal, m)));
            return browseFrom(placement, request, order, index + 1, found, positions, end && r.end());
        });
    }

}
