package io.junction.core.filter;

import java.util.Locale;

/** Filter expression languages, named as RocketMQ's {@code ExpressionType} names them on the wire. */
public enum FilterType {
    /** Tag expression: {@code *} or {@code tagA || tagB}. */
    TAG,
    /** SQL92 property filter (RocketMQ grammar plus the JMS selector extras). */
    SQL92;

    /**
     * Resolves a wire name. Null or empty means TAG, as RocketMQ clients that predate expression types send nothing.
     *
     * @throws InvalidFilterException for any other unknown name
     */
    public static FilterType of(final String name) {
        if (name == null || name.isEmpty()) {
            return TAG;
        }
        switch (name.toUpperCase(Locale.ROOT)) {
            case "TAG":
                return TAG;
            case "SQL92":
                return SQL92;
            default:
                throw new InvalidFilterException("unsupported expression type '" + name + "': expected TAG or SQL92");
        }
    }
}
