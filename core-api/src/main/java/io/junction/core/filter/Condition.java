package io.junction.core.filter;

import java.util.Map;

/**
 * A compiled boolean node of a SQL filter. Implementations are immutable and thread-safe: one compiled filter is
 * evaluated concurrently by every thread serving its subscription.
 */
interface Condition {
    /**
     * Evaluates against a message's properties.
     *
     * @return {@link Tri#TRUE}, {@link Tri#FALSE} or {@link Tri#UNKNOWN}
     */
    int test(Map<String, String> properties);
}
