package io.junction.core.filter;

import java.util.Map;

/**
 * A compiled numeric node (literal, property read as a number, negation, arithmetic).
 *
 * <p>A numeric value is either a long or a double, decided per message (a property holds "7" or "7.5"). To return
 * that without allocating, a node answers three questions: its {@link #kind}, then {@link #longValue} or
 * {@link #doubleValue}. Callers ask for a value only after the kind said it exists. Arithmetic filters therefore
 * evaluate their operands twice; the common "property compared with a constant" shape uses dedicated conditions that
 * read the property once.
 */
interface NumericExpr {
    /** No value: missing property, text that is not a number, integer division by zero. */
    int UNKNOWN = 0;
    /** An exact long. */
    int LONG = 1;
    /** A double. */
    int DOUBLE = 2;
    /**
     * A value that is not a number ({@link TypedProperties}: a string or boolean property): comparing it with a number
     * is FALSE, not UNKNOWN.
     */
    int NOT_A_NUMBER = 3;

    /** {@link #UNKNOWN}, {@link #LONG}, {@link #DOUBLE} or {@link #NOT_A_NUMBER}. */
    int kind(Map<String, String> properties);

    /** The value; only valid when {@link #kind} is {@link #LONG}. */
    long longValue(Map<String, String> properties);

    /** The value widened to double; valid when {@link #kind} is {@link #LONG} or {@link #DOUBLE}. */
    double doubleValue(Map<String, String> properties);
}
