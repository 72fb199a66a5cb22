package io.junction.core.filter;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * String operators on a property: RocketMQ's CONTAINS / STARTSWITH / ENDSWITH, IN, and the JMS LIKE. Each has a
 * negated form; a missing property makes both forms UNKNOWN, so {@code NOT IN} does not match messages lacking it. A
 * typed property ({@link TypedProperties}) that is not a string makes both forms FALSE.
 */
final class StringConditions {
    /** Up to this many IN items a linear scan beats hashing. */
    private static final int IN_LINEAR_SCAN_LIMIT = 8;

    private StringConditions() {
    }

    private static boolean notAString(final Map<String, String> properties, final String name) {
        return TypedProperties.isNot(properties, name, TypedProperties.Kind.STRING);
    }

    /** Which string test a {@link PropertyStringTest} applies. */
    enum Test {
        CONTAINS, STARTSWITH, ENDSWITH;

        boolean apply(final String value, final String literal) {
            switch (this) {
                case CONTAINS: return value.contains(literal);
                case STARTSWITH: return value.startsWith(literal);
                default: return value.endsWith(literal);
            }
        }
    }

    /** {@code prop [NOT] CONTAINS|STARTSWITH|ENDSWITH 'literal'}. */
    static final class PropertyStringTest implements Condition {
        private final String name;
        private final Test test;
        private final String literal;
        private final boolean negated;

        PropertyStringTest(final String name, final Test test, final String literal, final boolean negated) {
            this.name = name;
            this.test = test;
            this.literal = literal;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String value = properties.get(name);
            if (value == null) {
                return Tri.UNKNOWN;
            }
            return notAString(properties, name) ? Tri.FALSE : Tri.of(test.apply(value, literal) != negated);
        }

        @Override
        public String toString() {
            return name + (negated ? " NOT " : " ") + test + " '" + literal + "'";
        }
    }

    /** {@code prop [NOT] IN ('a', 'b', ...)}. */
    static final class PropertyIn implements Condition {
        private final String name;
        private final String[] items;
        /** Null for short lists, which scan {@link #items}. */
        private final Set<String> itemSet;
        private final boolean negated;

        PropertyIn(final String name, final String[] items, final boolean negated) {
            this.name = name;
            this.items = items.clone();
            this.itemSet = items.length > IN_LINEAR_SCAN_LIMIT ? Set.copyOf(Arrays.asList(items)) : null;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String value = properties.get(name);
            if (value == null) {
                return Tri.UNKNOWN;
            }
            return notAString(properties, name) ? Tri.FALSE : Tri.of(contains(value) != negated);
        }

        private boolean contains(final String value) {
            if (itemSet != null) {
                return itemSet.contains(value);
            }
            for (final String item : items) {
                if (item.equals(value)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString() {
            return name + (negated ? " NOT IN " : " IN ") + Arrays.toString(items);
        }
    }

    /** {@code prop [NOT] LIKE 'pattern' [ESCAPE 'c']}. */
    static final class PropertyLike implements Condition {
        private final String name;
        private final LikePattern pattern;
        private final boolean negated;

        PropertyLike(final String name, final LikePattern pattern, final boolean negated) {
            this.name = name;
            this.pattern = pattern;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String value = properties.get(name);
            if (value == null) {
                return Tri.UNKNOWN;
            }
            return notAString(properties, name) ? Tri.FALSE : Tri.of(pattern.matches(value) != negated);
        }

        @Override
        public String toString() {
            return name + (negated ? " NOT LIKE '" : " LIKE '") + pattern + "'";
        }
    }
}
