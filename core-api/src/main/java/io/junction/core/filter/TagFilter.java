package io.junction.core.filter;

import io.junction.core.message.MessageProperties;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * RocketMQ tag subscription: {@code *} (or empty) for every message, else {@code tagA || tagB || ...}.
 *
 * <p>Stage one compares the queue entry's tag hash ({@link #tagHash}) with the hashes of the subscribed tags, so
 * non-matching entries cost no log read. Different tags can share a hash ("Aa" and "BB"), so stage two checks the
 * message's exact {@code TAGS} property — the broker does it here instead of leaving it to the client as RocketMQ does.
 */
public final class TagFilter implements MessageFilter {
    /** The subscription expression that selects every message. */
    public static final String ALL_TAGS = "*";
    private static final String SEPARATOR = "||";

    private final String expression;
    private final Set<String> tags;
    /** Distinct hashes of {@link #tags}, sorted for binary search. */
    private final int[] hashes;

    private TagFilter(final String expression, final Set<String> tags) {
        this.expression = expression;
        this.tags = Set.copyOf(tags);
        this.hashes = tags.stream().mapToInt(String::hashCode).distinct().sorted().toArray();
    }

    /**
     * Parses a tag expression as RocketMQ does (trim, split on {@code ||}, trim each tag, drop empty ones).
     *
     * @return {@link MessageFilter#ALL} for {@code *}, null or empty; otherwise a tag filter. An expression with only
     *     separators ({@code "||"}) yields an empty tag set that matches nothing, as in RocketMQ.
     */
    public static MessageFilter parse(final String expression) {
        final String trimmed = expression == null ? "" : expression.trim();
        if (trimmed.isEmpty() || trimmed.equals(ALL_TAGS)) {
            return MessageFilter.ALL;
        }
        final Set<String> tags = new LinkedHashSet<>();
        int from = 0;
        while (from <= trimmed.length()) {
            int to = trimmed.indexOf(SEPARATOR, from);
            if (to < 0) {
                to = trimmed.length();
            }
            final String tag = trimmed.substring(from, to).trim();
            if (!tag.isEmpty()) {
                tags.add(tag);
            }
            from = to + SEPARATOR.length();
        }
        return new TagFilter(trimmed, tags);
    }

    /**
     * The tag hash a queue entry stores for a message: {@code (long) tag.hashCode()} of its {@code TAGS} property, 0
     * when it has none. The store calls this when writing queue entries; stage one of every tag filter relies on it.
     */
    public static long tagHash(final String tag) {
        // RocketMQ's definition (String.hashCode), so entries written by either read the same.
        return tag == null || tag.isEmpty() ? 0 : tag.hashCode();
    }

    @Override
    public boolean matchesTagHash(final long tagHash) {
        // Hashes come from String.hashCode, so anything outside int range cannot be one of ours.
        return tagHash == (int) tagHash && Arrays.binarySearch(hashes, (int) tagHash) >= 0;
    }

    @Override
    public boolean matches(final Map<String, String> properties) {
        final String tag = properties == null ? null : properties.get(MessageProperties.TAGS);
        return tag != null && tags.contains(tag);
    }

    /** The subscribed tags. */
    public Set<String> tags() {
        return tags;
    }

    @Override
    public FilterSpec spec() {
        return new FilterSpec.Tag(expression);
    }

    @Override
    public String toString() {
        return expression;
    }
}
