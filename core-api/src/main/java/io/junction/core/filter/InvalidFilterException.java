package io.junction.core.filter;

/**
 * A filter definition the broker cannot accept: unsupported type or dialect, malformed structure. Front-ends turn it
 * into their protocol's "bad subscription" reply; it is unchecked because callers usually let it propagate to that
 * single translation point.
 */
public class InvalidFilterException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message that says what is wrong. */
    public InvalidFilterException(final String message) {
        super(message);
    }
}
