package io.junction.core.meta;

import java.util.Map;
import java.util.Objects;

/**
 * A consumer group's configuration.
 *
 * @param maxReconsumeTimes deliveries after the first before a message goes to the group's dead-letter queue
 * @param attributes        free-form attributes
 */
public record GroupConfig(String name, int maxReconsumeTimes, boolean fifo, boolean broadcast,
                          Map<String, String> attributes) {
    public static final int DEFAULT_MAX_RECONSUME_TIMES = 16;
    /**
     * Attribute that makes POP track the group's messages in place ({@code "true"}), as a JMS queue needs: a pop's
     * filter chooses among the group's messages without consuming the others (they stay for pops with other filters,
     * and for browsing), and a message given back or not acked in time is delivered again in its place, ahead of later
     * ones, rather than through the retry topic.
     */
    public static final String IN_PLACE_ATTRIBUTE = "pop.in-place";

    public GroupConfig {
        Objects.requireNonNull(name, "name");
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }

    /** Whether POP tracks this group's messages in place (see {@link #IN_PLACE_ATTRIBUTE}). */
    public boolean inPlace() {
        return "true".equals(attributes.get(IN_PLACE_ATTRIBUTE));
    }

    public static GroupConfig of(final String name) {
        return new GroupConfig(name, DEFAULT_MAX_RECONSUME_TIMES, false, false, Map.of());
    }
}
