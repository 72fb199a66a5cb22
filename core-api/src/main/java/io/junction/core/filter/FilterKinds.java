package io.junction.core.filter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The {@link FilterKind}s on the class path, loaded once. */
final class FilterKinds {
    private FilterKinds() {
    }

    private static final class Loaded {
        static final Map<String, FilterKind> BY_NAME = load();

        private static Map<String, FilterKind> load() {
            final Map<String, FilterKind> kinds = new HashMap<>();
            for (FilterKind kind : ServiceLoader.load(FilterKind.class, FilterKind.class.getClassLoader())) {
                kinds.put(kind.name(), kind);
            }
            return Map.copyOf(kinds);
        }
    }

    static MessageFilter compile(final String kind, final List<String> arguments) {
        final FilterKind found = Loaded.BY_NAME.get(kind);
        if (found == null) {
            throw new InvalidFilterException("unknown filter kind '" + kind + "' (its module is not on this node)");
        }
        return found.compile(arguments);
    }
}
