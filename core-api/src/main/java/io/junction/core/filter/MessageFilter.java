package io.junction.core.filter;

import java.util.Map;

/**
 * Decides which messages a subscription receives, in two stages: a cheap check on the tag hash kept in each queue
 * entry (so non-matching entries cost no log read), then an exact check on the message's properties.
 */
public interface MessageFilter {

    /** Matches every message. */
    MessageFilter ALL = new MessageFilter() {
        @Override
        public boolean matchesTagHash(final long tagHash) {
            return true;
        }

        @Override
        public boolean matches(final Map<String, String> properties) {
            return true;
        }

        @Override
        public FilterSpec spec() {
            return new FilterSpec.All();
        }

        @Override
        public String toString() {
            return "*";
        }
    };

    /**
     * First stage, on the queue entry alone: false means the message certainly does not match. May answer true for
     * messages that {@link #matches} then rejects (hash collisions, property filters).
     */
    boolean matchesTagHash(long tagHash);

    /** Exact decision on the message's properties (tag, keys, user properties). */
    boolean matches(Map<String, String> properties);

    /**
     * Exact decision on a stored message: its properties, and when it was born (epoch ms) for filters that read that
     * too (a JMS selector's {@code JMSTimestamp}). The store decides through this one.
     */
    default boolean matches(final Map<String, String> properties, final long bornTimestamp) {
        return matches(properties);
    }

    /**
     * This filter as data, to be compiled again on another node ({@link FilterSpec#compile()}), or null when it
     * cannot be described: a front-end's own filter that reads its front-end's state.
     */
    default FilterSpec spec() {
        return null;
    }
}
