package io.junction.core.filter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Two-valued boolean combinations of whole filters (CloudEvents {@code all}, {@code any}, {@code not}). */
final class CompositeFilters {
    private CompositeFilters() {
    }

    static MessageFilter allOf(final List<MessageFilter> filters) {
        return filters.size() == 1 ? filters.get(0) : new AllOf(filters.toArray(new MessageFilter[0]));
    }

    static MessageFilter anyOf(final List<MessageFilter> filters) {
        return filters.size() == 1 ? filters.get(0) : new AnyOf(filters.toArray(new MessageFilter[0]));
    }

    static MessageFilter not(final MessageFilter filter) {
        return new Not(filter);
    }

    /** The parts' specs, or null when one of them has none. */
    private static List<FilterSpec> specs(final MessageFilter[] filters) {
        final List<FilterSpec> parts = new ArrayList<>(filters.length);
        for (final MessageFilter filter : filters) {
            final FilterSpec part = filter.spec();
            if (part == null) {
                return null;
            }
            parts.add(part);
        }
        return parts;
    }

    /** Matches when every filter matches; an empty list matches everything. */
    static final class AllOf implements MessageFilter {
        private final MessageFilter[] filters;

        AllOf(final MessageFilter[] filters) {
            this.filters = filters;
        }

        @Override
        public boolean matchesTagHash(final long tagHash) {
            for (final MessageFilter filter : filters) {
                if (!filter.matchesTagHash(tagHash)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public boolean matches(final Map<String, String> properties) {
            for (final MessageFilter filter : filters) {
                if (!filter.matches(properties)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public FilterSpec spec() {
            final List<FilterSpec> parts = specs(filters);
            return parts == null ? null : new FilterSpec.AllOf(parts);
        }

        @Override
        public String toString() {
            return "all" + Arrays.toString(filters);
        }
    }

    /** Matches when at least one filter matches. */
    static final class AnyOf implements MessageFilter {
        private final MessageFilter[] filters;

        AnyOf(final MessageFilter[] filters) {
            this.filters = filters;
        }

        @Override
        public boolean matchesTagHash(final long tagHash) {
            for (final MessageFilter filter : filters) {
                if (filter.matchesTagHash(tagHash)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean matches(final Map<String, String> properties) {
            for (final MessageFilter filter : filters) {
                if (filter.matches(properties)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public FilterSpec spec() {
            final List<FilterSpec> parts = specs(filters);
            return parts == null ? null : new FilterSpec.AnyOf(parts);
        }

        @Override
        public String toString() {
            return "any" + Arrays.toString(filters);
        }
    }

    /** Matches when the filter does not; its first stage can exclude nothing, because stage one may over-approximate. */
    static final class Not implements MessageFilter {
        private final MessageFilter filter;

        Not(final MessageFilter filter) {
            this.filter = filter;
        }

        @Override
        public boolean matchesTagHash(final long tagHash) {
            return true;
        }

        @Override
        public boolean matches(final Map<String, String> properties) {
            return !filter.matches(properties);
        }

        @Override
        public FilterSpec spec() {
            final FilterSpec part = filter.spec();
            return part == null ? null : new FilterSpec.Not(part);
        }

        @Override
        public String toString() {
            return "not(" + filter + ")";
        }
    }
}
