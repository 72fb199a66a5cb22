package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.filter.MessageFilter;
import io.junction.core.meta.GroupConfig;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Keeps an ordered consumer group's messages in order across a seam. Two kinds of consumer group keep order within a
 * physical queue: FIFO groups (a message group's next message waits until the one before is done) and in-place groups
 * ({@link GroupConfig#inPlace}, a JMS queue's: each pop takes the oldest messages available, and a message given back
 * comes again in its place, before later ones). A store group keeps that order within its own physical queue only;
 * once scaling seals a logical queue's segment on one group and opens the next on another, the new group knows
 * nothing of the old one's messages still unread or in flight, and the proxy's POP, spread over the groups, would hand
 * out later messages before them (a spread pass may start at either group). So, for such a group, every segment after
 * one the group has not finished is <em>held</em>: its POP takes nothing there (nor waits there) until the earlier
 * segment is done, that is when the old group's position for the consumer group (its committed offset: the first
 * message not yet acked or dead-lettered, which FIFO and in-place groups both keep) has reached the segment's end, or
 * retention has removed the segment, or its group was forgotten (it reads as empty).
 *
 * <p>This holds the whole physical queue, not only the message groups with messages left in the old segment (the
 * old group does not say which those are): other message groups of the logical queue wait for the old segment's
 * last in-flight message too, once per seam. For an in-place group the hold is stricter than its order within one
 * physical queue (there a later message may be handed out while an earlier one is in flight): the new segment waits
 * for every message of the old one to be acked. An in-place group's POP with a selector is not held: a message no
 * consumer's selector takes stays in the old segment (in one physical queue it only waits there), and holding the new
 * segment behind it would stall every selector consumer of the queue until retention removed it; such a POP takes
 * the old segment's messages it selects and the new one's alike, in the order the spread reaches them. The positions
 * read are the groups' mirrors (memory, at most a mirror refresh old); an old position only holds a little longer, it
 * never lets a message overtake.
 */
final class SeamHolds {
    private final Messaging metadata;
    private final Function<String, Messaging> groups;
    private final Predicate<String> known;

    /**
     * @param metadata the metadata group (consumer groups' configuration)
     * @param groups   a store group's contract by name
     * @param known    whether a group is reached (a forgotten one reads as empty)
     */
    SeamHolds(final Messaging metadata, final Function<String, Messaging> groups, final Predicate<String> known) {
        this.metadata = metadata;
        this.groups = groups;
        this.known = known;
    }

    /** What {@code pop}, of a topic placed as {@code placement} (null: unplaced), may take from. */
    PopScope scope(final TopicPlacement placement, final PopRequest pop) {
        final String consumerGroup = pop.group();
        if (placement == null || !held(pop)) {
            return new PopScope(placement, Map.of());
        }
        final Map<String, Set<Integer>> held = new HashMap<>();
        for (int q = 0; q < placement.queueCount(); q++) {
            final List<QueueSegment> segments = placement.queue(q);
            boolean holding = false;
            for (QueueSegment s : segments) {
                if (holding) {
                    held.computeIfAbsent(s.group(), g -> new HashSet<>()).add(s.physicalQueue());
                } else if (!s.open() && !done(placement.topic(), s, consumerGroup)) {
                    holding = true;
                }
            }
        }
        return new PopScope(placement, held);
    }

    /**
     * FIFO groups' POPs, and in-place groups' POPs without a selector, keep order; other groups consume a queue's
     * messages in any order.
     */
    private boolean held(final PopRequest pop) {
        return metadata.groups().get(pop.group())
                .map(g -> g.fifo() || g.inPlace() && pop.filter() == MessageFilter.ALL).orElse(false);
    }

    /** Whether the consumer group has nothing left to take or ack in a sealed segment. */
    private boolean done(final String topic, final QueueSegment sealed, final String consumerGroup) {
        final long end = sealed.physicalEnd();
        if (sealed.physicalStart() >= end || !known.test(sealed.group())) {
            return true;
        }
        final Messaging group = groups.apply(sealed.group());
        return group.minOffset(topic, sealed.physicalQueue()) >= end
                || group.queryOffset(consumerGroup, topic, sealed.physicalQueue()) >= end;
    }
}
