package io.junction.remoting.processor;

import io.junction.core.filter.Filters;
import io.junction.core.filter.MessageFilter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Compiled subscription filters by (type, expression): pulls repeat the same few, so compile each once. */
public final class FilterCache {
    private static final int MAX_ENTRIES = 4096;

    private record Key(String type, String expression) {
    }

    private final Map<Key, MessageFilter> filters = new ConcurrentHashMap<>();

    /**
     * The filter for a subscription; "*" or an empty TAG expression matches everything.
     *
     * @throws io.junction.core.filter.InvalidFilterException for a malformed expression
     */
    public MessageFilter get(final String type, final String expression) {
        final String t = type == null || type.isEmpty() ? "TAG" : type;
        if ("TAG".equalsIgnoreCase(t)
                && (expression == null || expression.isBlank() || "*".equals(expression.trim()))) {
            return MessageFilter.ALL;
        }
        final Key key = new Key(t, expression);
        final MessageFilter cached = filters.get(key);
        if (cached != null) {
            return cached;
        }
        final MessageFilter compiled = Filters.compile(t, expression);
        if (filters.size() >= MAX_ENTRIES) {
            filters.clear();
        }
        filters.put(key, compiled);
        return compiled;
    }
}
