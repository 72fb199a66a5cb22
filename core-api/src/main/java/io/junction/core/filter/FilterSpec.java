package io.junction.core.filter;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A filter as data: what a {@link MessageFilter} of this package is, so that it can be sent to another node and
 * compiled there into a filter that accepts and rejects exactly the same messages ({@link #compile()}).
 *
 * <p>Filters made by this package describe themselves ({@link MessageFilter#spec()}); a front-end's own filter
 * describes itself as an {@link Extension} of a {@link FilterKind} its module registers. A filter without a spec
 * cannot leave its node: a node that needs to send it elsewhere refuses the call rather than widening the filter.
 */
public sealed interface FilterSpec {

    /** The filter this describes, built again. */
    MessageFilter compile();

    /** Every message. */
    record All() implements FilterSpec {
        @Override
        public MessageFilter compile() {
            return MessageFilter.ALL;
        }
    }

    /** A RocketMQ tag expression as the subscriber wrote it. */
    record Tag(String expression) implements FilterSpec {
        public Tag {
            Objects.requireNonNull(expression, "expression");
        }

        @Override
        public MessageFilter compile() {
            return TagFilter.parse(expression);
        }
    }

    /**
     * A SQL expression in a dialect; {@code propertyNames} maps each identifier of the expression to the property it
     * names, when the filter was compiled with such a mapping (CloudEvents attributes), and is empty otherwise
     * (identifiers name properties directly).
     */
    record Sql(String expression, SqlDialect dialect, Map<String, String> propertyNames) implements FilterSpec {
        public Sql {
            Objects.requireNonNull(expression, "expression");
            Objects.requireNonNull(dialect, "dialect");
            propertyNames = Map.copyOf(propertyNames);
        }

        @Override
        public MessageFilter compile() {
            if (propertyNames.isEmpty()) {
                return SqlFilter.compile(expression, dialect);
            }
            return SqlFilter.compile(expression, dialect, propertyNames::get);
        }
    }

    /** Every part matches (an empty list matches everything). */
    record AllOf(List<FilterSpec> parts) implements FilterSpec {
        public AllOf {
            parts = List.copyOf(parts);
        }

        @Override
        public MessageFilter compile() {
            return CompositeFilters.allOf(parts.stream().map(FilterSpec::compile).toList());
        }
    }

    /** At least one part matches. */
    record AnyOf(List<FilterSpec> parts) implements FilterSpec {
        public AnyOf {
            parts = List.copyOf(parts);
        }

        @Override
        public MessageFilter compile() {
            return CompositeFilters.anyOf(parts.stream().map(FilterSpec::compile).toList());
        }
    }

    /** The part does not match. */
    record Not(FilterSpec part) implements FilterSpec {
        public Not {
            Objects.requireNonNull(part, "part");
        }

        @Override
        public MessageFilter compile() {
            return CompositeFilters.not(part.compile());
        }
    }

    /**
     * Every listed property is present and its value equals ({@code EXACT}), starts with ({@code PREFIX}) or ends with
     * ({@code SUFFIX}) the value at the same index.
     */
    record AttributeMatch(AttributeMode mode, List<String> properties, List<String> values) implements FilterSpec {
        public AttributeMatch {
            Objects.requireNonNull(mode, "mode");
            properties = List.copyOf(properties);
            values = List.copyOf(values);
            if (properties.size() != values.size()) {
                throw new IllegalArgumentException("properties and values differ in length");
            }
        }

        @Override
        public MessageFilter compile() {
            return new AttributeMatchFilter(mode, properties.toArray(new String[0]), values.toArray(new String[0]));
        }
    }

    /** A filter of a kind a front-end module defines ({@link FilterKind}), with that kind's arguments. */
    record Extension(String kind, List<String> arguments) implements FilterSpec {
        public Extension {
            Objects.requireNonNull(kind, "kind");
            arguments = List.copyOf(arguments);
        }

        @Override
        public MessageFilter compile() {
            return FilterKinds.compile(kind, arguments);
        }
    }

    /** How an attribute match compares a property's value with the filter's. */
    enum AttributeMode {
        EXACT, PREFIX, SUFFIX;

        boolean apply(final String actual, final String expected) {
            switch (this) {
                case EXACT: return actual.equals(expected);
                case PREFIX: return actual.startsWith(expected);
                default: return actual.endsWith(expected);
            }
        }
    }
}
