package io.junction.cluster.contract;

import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Filters the contract tests build by hand: one that cannot describe itself (it reads its front-end's state, so it
 * cannot cross to another process) and one that describes itself as an extension kind, known or not to the server.
 * Both let every tag hash through: the property test decides.
 */
final class HandMadeFilters {
    private HandMadeFilters() {
    }

    /** A filter without a wire description ({@link MessageFilter#spec()} left to its default). */
    static MessageFilter frontEndLocal(final Predicate<Map<String, String>> matches) {
        return new ByProperties(matches);
    }

    /** A filter described as the extension {@code kind} with {@code arguments}. */
    static MessageFilter extension(final String kind, final List<String> arguments,
                                   final Predicate<Map<String, String>> matches) {
        return new ByProperties(matches) {
            @Override
            public FilterSpec spec() {
                return new FilterSpec.Extension(kind, arguments);
            }
        };
    }

    /** Every tag hash passes; the properties decide. */
    private static class ByProperties implements MessageFilter {
        private final Predicate<Map<String, String>> matches;

        ByProperties(final Predicate<Map<String, String>> matches) {
            this.matches = matches;
        }

        @Override
        public boolean matchesTagHash(final long tagHash) {
            return true;
        }

        @Override
        public boolean matches(final Map<String, String> properties) {
            return matches.test(properties);
        }
    }
}
