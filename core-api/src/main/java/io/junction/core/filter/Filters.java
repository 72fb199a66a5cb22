package io.junction.core.filter;

import java.util.Objects;
import java.util.function.Function;

/** The one entry point front-ends use to turn a subscription's filter definition into a {@link MessageFilter}. */
public final class Filters {
    private Filters() {
    }

    /**
     * Compiles a RocketMQ subscription expression.
     *
     * @throws FilterSyntaxException if a SQL92 expression is malformed
     */
    public static MessageFilter compile(final FilterType type, final String expression) {
        Objects.requireNonNull(type, "type");
        switch (type) {
            case TAG:
                return TagFilter.parse(expression);
            case SQL92:
                return SqlFilter.compile(expression == null ? "" : expression, SqlDialect.SQL92);
            default:
                throw new InvalidFilterException("unsupported filter type " + type);
        }
    }

    /**
     * Compiles a subscription expression given its wire type name ({@code "TAG"}, {@code "SQL92"}; null or empty
     * means TAG).
     *
     * @throws InvalidFilterException for an unknown type or a malformed expression
     */
    public static MessageFilter compile(final String type, final String expression) {
        return compile(FilterType.of(type), expression);
    }

    /**
     * Compiles a JMS message selector (AMQP/JMS consumers). A null or blank selector selects every message, as JMS
     * defines.
     */
    public static MessageFilter jmsSelector(final String selector) {
        if (selector == null || selector.isBlank()) {
            return MessageFilter.ALL;
        }
        return SqlFilter.compile(selector, SqlDialect.JMS);
    }

    /**
     * Compiles CloudEvents subscription filters (parsed JSON: a list of filter expressions, or one expression).
     *
     * @see AttributeFilters#compile(Object, Function)
     */
    public static MessageFilter cloudEvents(final Object filters, final Function<String, String> attributeToProperty) {
        return AttributeFilters.compile(filters, attributeToProperty);
    }
}
