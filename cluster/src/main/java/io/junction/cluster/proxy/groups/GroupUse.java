package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * How the topics' placements use one store group: what decides whether it may be removed.
 *
 * @param openIn   topics with a segment taking writes there (the group cannot go)
 * @param sealedIn topics with only sealed segments there that still hold messages (not all expired by retention): the
 *                 group can be retired, not forgotten
 */
public record GroupUse(List<String> openIn, List<String> sealedIn) {

    static GroupUse of(final String group, final PlacementBook book, final Map<String, Messaging> groups) {
        final SortedSet<String> open = new TreeSet<>();
        final SortedSet<String> sealed = new TreeSet<>();
        for (String topic : book.texts().keySet()) {
            final TopicPlacement p = book.get(topic);
            if (p == null) {
                continue;
            }
            for (int q = 0; q < p.queueCount(); q++) {
                for (QueueSegment s : p.queue(q)) {
                    if (s.group().equals(group) && s.open()) {
                        open.add(topic);
                    } else if (s.group().equals(group) && readable(topic, s, groups.get(group))) {
                        sealed.add(topic);
                    }
                }
            }
        }
        sealed.removeAll(open);
        return new GroupUse(List.copyOf(open), List.copyOf(sealed));
    }

    /** Whether a sealed segment still holds messages: its group's oldest retained offset lies below its end. */
    private static boolean readable(final String topic, final QueueSegment sealed, final Messaging group) {
        return group != null && sealed.physicalEnd() > sealed.physicalStart()
                && group.minOffset(topic, sealed.physicalQueue()) < sealed.physicalEnd();
    }
}
