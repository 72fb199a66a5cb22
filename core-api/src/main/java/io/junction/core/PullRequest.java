package io.junction.core;

import io.junction.core.filter.MessageFilter;
import java.util.Objects;

/**
 * Read messages of one queue from an offset.
 *
 * @param group          the consumer group (for statistics; offsets are not moved by a pull)
 * @param maxMessages    at most this many messages
 * @param filter         which messages to return; non-matching ones are skipped and counted in the next offset
 * @param maxWaitMillis  when nothing is there, wait up to this long for a message to arrive (0 = answer at once)
 */
public record PullRequest(
        String group,
        String topic,
        int queueId,
        long offset,
        int maxMessages,
        MessageFilter filter,
        long maxWaitMillis) {

    public PullRequest {
        Objects.requireNonNull(topic, "topic");
        filter = filter == null ? MessageFilter.ALL : filter;
    }
}
