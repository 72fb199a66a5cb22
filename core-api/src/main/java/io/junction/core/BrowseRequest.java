package io.junction.core;

import io.junction.core.filter.MessageFilter;
import java.util.Objects;

/**
 * Look at the messages a consumer group would get next from a topic, without taking them (a JMS queue browser).
 *
 * @param positions   where the previous browse of this enumeration stopped, per queue ({@link BrowseResult#positions});
 *                    null to start at the oldest message the group has not consumed
 * @param maxMessages most messages to return
 */
public record BrowseRequest(String group, String topic, MessageFilter filter, long[] positions, int maxMessages) {
    public BrowseRequest {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        filter = filter == null ? MessageFilter.ALL : filter;
        positions = positions == null ? null : positions.clone();
    }
}
