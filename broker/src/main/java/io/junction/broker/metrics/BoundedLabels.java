package io.junction.broker.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The values one label may take, at most {@code max} of them: the first {@code max} distinct values keep their own
 * series, every later one is reported as {@link #OTHER}. A broker with a million MQTT topics (first topic level) or
 * consumer groups would otherwise grow a million series per metric, and the registry with them.
 */
final class BoundedLabels {

    /** The label value standing in for every value beyond the cap. */
    static final String OTHER = "_other_";

    private final int max;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();

    BoundedLabels(final int max) {
        this.max = max;
    }

    /** {@code value} itself while it is admitted or there is room for it, else {@link #OTHER}. */
    String label(final String value) {
        if (admitted.contains(value)) {
            return value;
        }
        // Racing admissions may overshoot the cap by the number of racing threads; it stays bounded.
        if (admitted.size() < max) {
            admitted.add(value);
            return value;
        }
        return OTHER;
    }
}
