package io.junction.core.filter;

import java.util.Locale;
import java.util.Map;

/**
 * One lexical token of a SQL filter expression.
 *
 * @param kind   what the token is
 * @param text   the identifier or number digits as written (no {@code L} suffix), the unescaped value of a string
 *               literal, the operator symbol, or the keyword in upper case
 * @param column 1-based column of the first character
 */
record SqlToken(Kind kind, String text, int column) {

    /** Token kinds; keywords are listed with their spelling. */
    enum Kind {
        IDENTIFIER, STRING, INTEGER, DECIMAL,
        AND, OR, NOT, BETWEEN, IN, IS, NULL, TRUE, FALSE, LIKE, ESCAPE, CONTAINS, STARTSWITH, ENDSWITH,
        EQ, NE, LT, LE, GT, GE, PLUS, MINUS, STAR, SLASH, PERCENT, LPAREN, RPAREN, COMMA,
        EOF
    }

    private static final Map<String, Kind> KEYWORDS = Map.ofEntries(
            Map.entry("AND", Kind.AND), Map.entry("OR", Kind.OR), Map.entry("NOT", Kind.NOT),
            Map.entry("BETWEEN", Kind.BETWEEN), Map.entry("IN", Kind.IN), Map.entry("IS", Kind.IS),
            Map.entry("NULL", Kind.NULL), Map.entry("TRUE", Kind.TRUE), Map.entry("FALSE", Kind.FALSE),
            Map.entry("LIKE", Kind.LIKE), Map.entry("ESCAPE", Kind.ESCAPE), Map.entry("CONTAINS", Kind.CONTAINS),
            Map.entry("STARTSWITH", Kind.STARTSWITH), Map.entry("ENDSWITH", Kind.ENDSWITH));

    /** The keyword kind a word spells (case-insensitively), or null. */
    static Kind keyword(final String word) {
        return KEYWORDS.get(word.toUpperCase(Locale.ROOT));
    }

    /** How the token is shown in an error message. */
    String describe() {
        switch (kind) {
            case EOF:
                return "end of expression";
            case STRING:
                return "string literal '" + text.replace("'", "''") + "'";
            default:
                return "'" + text + "'";
        }
    }
}
