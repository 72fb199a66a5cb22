package io.junction.core.filter;

/**
 * SQL/JMS three-valued logic as plain ints, so evaluating a condition returns a primitive and allocates nothing.
 * A comparison involving a missing property (or a value that cannot be converted) is UNKNOWN; a filter matches only on
 * TRUE, so {@code NOT (a = 1)} does not match a message without {@code a}.
 */
final class Tri {
    static final int FALSE = 0;
    static final int TRUE = 1;
    static final int UNKNOWN = 2;

    private Tri() {
    }

    static int of(final boolean value) {
        return value ? TRUE : FALSE;
    }

    static int not(final int value) {
        return value == UNKNOWN ? UNKNOWN : value ^ 1;
    }

    static String name(final int value) {
        return value == TRUE ? "TRUE" : value == FALSE ? "FALSE" : "UNKNOWN";
    }
}
