package io.junction.core.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds filters from CloudEvents Subscriptions API filter expressions, given as parsed JSON (Maps, Lists, Strings) so
 * the HTTP front-end can hand its JSON tree straight in. Dialects:
 * <pre>
 * {"exact":  {"type": "com.example.created", "source": "/orders"}}   every attribute equal
 * {"prefix": {"type": "com.example."}}                               every attribute starts with
 * {"suffix": {"subject": ".png"}}                                    every attribute ends with
 * {"all": [ expr, ... ]}   {"any": [ expr, ... ]}   {"not": expr}
 * {"sql": "type LIKE 'com.example.%' AND size > 10"}                 {@link SqlFilter}, JMS dialect
 * </pre>
 * A subscription's {@code filters} array is an implicit {@code all}. A missing attribute fails exact/prefix/suffix.
 *
 * <p>Attributes are read as message properties named by a caller-supplied mapping, applied once here at build time,
 * because the front-end owns how CloudEvents attributes are stored as properties.
 */
public final class AttributeFilters {
    private AttributeFilters() {
    }

    /**
     * @param filters             a List of filter expressions (all must match), one expression (a Map), or null for none
     * @param attributeToProperty attribute name to property name; null rejects the attribute as unknown
     * @throws InvalidFilterException (or its {@link FilterSyntaxException} for a malformed sql expression) naming the
     *     path of the offending expression, e.g. {@code filters[1].any[0].exact}
     */
    public static MessageFilter compile(final Object filters, final Function<String, String> attributeToProperty) {
        Objects.requireNonNull(attributeToProperty, "attributeToProperty");
        if (filters == null) {
            return MessageFilter.ALL;
        }
        if (filters instanceof List) {
            final List<MessageFilter> compiled = list((List<?>) filters, "filters", attributeToProperty);
            return compiled.isEmpty() ? MessageFilter.ALL : CompositeFilters.allOf(compiled);
        }
        return expression(filters, "filter", attributeToProperty);
    }

    private static MessageFilter expression(final Object node, final String path,
            final Function<String, String> names) {
        if (!(node instanceof Map)) {
            throw invalid(path, "expected an object with one dialect but found " + describe(node));
        }
        final Map<?, ?> map = (Map<?, ?>) node;
        if (map.size() != 1) {
            throw invalid(path, "expected exactly one dialect but found " + map.keySet());
        }
        final Map.Entry<?, ?> entry = map.entrySet().iterator().next();
        final String dialect = String.valueOf(entry.getKey());
        final Object value = entry.getValue();
        final String here = path + "." + dialect;
        switch (dialect) {
            case "exact":
                return attributes(FilterSpec.AttributeMode.EXACT, value, here, names);
            case "prefix":
                return attributes(FilterSpec.AttributeMode.PREFIX, value, here, names);
            case "suffix":
                return attributes(FilterSpec.AttributeMode.SUFFIX, value, here, names);
            case "all":
                return CompositeFilters.allOf(nonEmptyList(value, here, names));
            case "any":
                return CompositeFilters.anyOf(nonEmptyList(value, here, names));
            case "not":
                return CompositeFilters.not(expression(value, here, names));
            case "sql":
                if (!(value instanceof String)) {
                    throw invalid(here, "expected a string but found " + describe(value));
                }
                return SqlFilter.compile((String) value, SqlDialect.JMS, names);
            default:
                throw invalid(path, "unsupported filter dialect '" + dialect
                        + "': expected exact, prefix, suffix, all, any, not or sql");
        }
    }

    private static MessageFilter attributes(final FilterSpec.AttributeMode mode, final Object value,
            final String path, final Function<String, String> names) {
        if (!(value instanceof Map) || ((Map<?, ?>) value).isEmpty()) {
            throw invalid(path, "expected an object of attribute names to values but found " + describe(value));
        }
        final Map<?, ?> map = (Map<?, ?>) value;
        final String[] properties = new String[map.size()];
        final String[] values = new String[map.size()];
        int i = 0;
        for (final Map.Entry<?, ?> e : map.entrySet()) {
            final String attribute = String.valueOf(e.getKey());
            if (attribute.isEmpty()) {
                throw invalid(path, "attribute name must not be empty");
            }
            if (!(e.getValue() instanceof String) || ((String) e.getValue()).isEmpty()) {
                throw invalid(path + "." + attribute, "expected a non-empty string but found " + describe(e.getValue()));
            }
            final String property = names.apply(attribute);
            if (property == null) {
                throw invalid(path + "." + attribute, "unknown attribute '" + attribute + "'");
            }
            properties[i] = property;
            values[i] = (String) e.getValue();
            i++;
        }
        return new AttributeMatchFilter(mode, properties, values);
    }

    private static List<MessageFilter> nonEmptyList(final Object value, final String path,
            final Function<String, String> names) {
        if (!(value instanceof List) || ((List<?>) value).isEmpty()) {
            throw invalid(path, "expected a non-empty array of filter expressions but found " + describe(value));
        }
        return list((List<?>) value, path, names);
    }

    private static List<MessageFilter> list(final List<?> items, final String path,
            final Function<String, String> names) {
        final List<MessageFilter> compiled = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            compiled.add(expression(items.get(i), path + "[" + i + "]", names));
        }
        return compiled;
    }

    private static String describe(final Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String) {
            return "\"" + value + "\"";
        }
        if (value instanceof Map) {
            return value.toString().length() > 60 ? "an object" : value.toString();
        }
        if (value instanceof List) {
            return ((List<?>) value).isEmpty() ? "an empty array" : "an array";
        }
        return value.toString();
    }

    private static InvalidFilterException invalid(final String path, final String reason) {
        return new InvalidFilterException(path + ": " + reason);
    }
}
