package io.junction.core.filter;

import java.util.Map;

/**
 * A message's properties that also know the type each value was sent with. Properties are stored as text; a front-end
 * whose clients send typed values (AMQP/JMS) hands SQL filters a property map that implements this interface, and the
 * filter then compares as JMS selectors do: only values of like types. A comparison of unlike types is FALSE (the
 * string "2" is not greater than 1, the int 2 is; an int is not equal to the string '2'; LIKE and IN apply to strings
 * only, a property tested as a boolean must be a boolean); a missing property still makes a comparison UNKNOWN.
 * Numbers of any width compare by value (an int 2 equals a double 2.0).
 *
 * <p>A plain map keeps RocketMQ's semantics: a value is text that converts to whatever the operator needs.
 */
public interface TypedProperties {

    /** What a value compares as. */
    enum Kind {
        STRING,
        /** byte, short, int, long, float or double. */
        NUMBER,
        BOOLEAN,
        /** A value no selector can compare (binary, ...): every comparison with it is FALSE. */
        OTHER
    }

    /** The kind of a property's value; only asked about properties the map holds. */
    Kind kindOf(String name);

    /**
     * Whether a present property's value is known not to be of {@code wanted} kind: false for plain maps, which convert
     * text on demand.
     */
    static boolean isNot(final Map<String, String> properties, final String name, final Kind wanted) {
        return properties instanceof TypedProperties typed && typed.kindOf(name) != wanted;
    }
}
