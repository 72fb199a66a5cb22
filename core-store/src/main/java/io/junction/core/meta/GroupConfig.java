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

    public GroupConfig {
        Objects.requireNonNull(name, "name");
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }

    public static GroupConfig of(final String name) {
        return new GroupConfig(name, DEFAULT_MAX_RECONSUME_TIMES, false, false, Map.of());
    }
}
