package io.junction.core.filter;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * CloudEvents {@code exact}, {@code prefix} and {@code suffix} dialects: every listed attribute must be present and its
 * value must equal / start with / end with the given text (case-sensitive).
 */
final class AttributeMatchFilter implements MessageFilter {
    private final FilterSpec.AttributeMode mode;
    private final String[] properties;
    private final String[] values;

    /** Property names already mapped from attribute names, parallel to {@code values}. */
    AttributeMatchFilter(final FilterSpec.AttributeMode mode, final String[] properties, final String[] values) {
        this.mode = mode;
        this.properties = properties.clone();
        this.values = values.clone();
    }

    @Override
    public boolean matchesTagHash(final long tagHash) {
        return true;
    }

    @Override
    public boolean matches(final Map<String, String> messageProperties) {
        for (int i = 0; i < properties.length; i++) {
            final String actual = messageProperties.get(properties[i]);
            if (actual == null || !mode.apply(actual, values[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public FilterSpec spec() {
        return new FilterSpec.AttributeMatch(mode, List.of(properties), List.of(values));
    }

    @Override
    public String toString() {
        final StringBuilder sb = new StringBuilder(mode.name().toLowerCase(Locale.ROOT)).append('{');
        for (int i = 0; i < properties.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(properties[i]).append('=').append(values[i]);
        }
        return sb.append('}').toString();
    }
}
