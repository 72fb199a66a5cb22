package io.junction.core.filter;

/**
 * A malformed filter expression. The message names the 1-based column and what was expected there, so a client can be
 * told exactly where its subscription expression went wrong.
 */
public final class FilterSyntaxException extends InvalidFilterException {
    private static final long serialVersionUID = 1L;
    /** Long expressions are quoted only around the error so a 64 KiB expression does not end up in a log line. */
    private static final int QUOTE_LIMIT = 80;

    private final int column;
    private final String reason;

    /**
     * @param expression the expression being compiled
     * @param column     1-based column of the offending character or token
     * @param reason     what was expected, or why the construct is rejected
     */
    public FilterSyntaxException(final String expression, final int column, final String reason) {
        super("column " + column + ": " + reason + " in " + quote(expression, column));
        this.column = column;
        this.reason = reason;
    }

    /** 1-based column of the offending character or token (expression length + 1 for "end of expression"). */
    public int column() {
        return column;
    }

    /** The reason without position or quoted expression. */
    public String reason() {
        return reason;
    }

    private static String quote(final String expression, final int column) {
        if (expression.length() <= QUOTE_LIMIT) {
            return '"' + expression + '"';
        }
        final int from = Math.max(0, Math.min(column - 1 - QUOTE_LIMIT / 2, expression.length() - QUOTE_LIMIT));
        final int to = Math.min(expression.length(), from + QUOTE_LIMIT);
        return (from > 0 ? "\"..." : "\"") + expression.substring(from, to) + (to < expression.length() ? "...\"" : "\"");
    }
}
