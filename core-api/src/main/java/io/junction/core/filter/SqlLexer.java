package io.junction.core.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a SQL filter expression into tokens. Follows RocketMQ's {@code SelectorParser.jj} lexical rules: whitespace,
 * {@code --} line and {@code /* *}{@code /} block comments, single-quoted strings with {@code ''} for a quote,
 * integers ({@code 0} or no leading zero, optional {@code L}), floating literals ({@code 5.}, {@code .5},
 * {@code 5E10}) and case-insensitive keywords. Identifier rules come from the {@link SqlDialect}.
 *
 * <p>The whole expression is tokenized up front: it is at most {@link SqlParser#MAX_LENGTH} characters, and a list
 * makes the parser's error reporting trivial.
 */
final class SqlLexer {
    private final String src;
    private final SqlDialect dialect;
    private final List<SqlToken> tokens = new ArrayList<>();
    private int pos;

    private SqlLexer(final String src, final SqlDialect dialect) {
        this.src = src;
        this.dialect = dialect;
    }

    /** Tokenizes the expression; the last token is always EOF at column length + 1. */
    static List<SqlToken> tokenize(final String expression, final SqlDialect dialect) {
        final SqlLexer lexer = new SqlLexer(expression, dialect);
        lexer.run();
        return lexer.tokens;
    }

    private void run() {
        final int n = src.length();
        while (true) {
            skipBlanksAndComments();
            if (pos >= n) {
                tokens.add(new SqlToken(SqlToken.Kind.EOF, "", n + 1));
                return;
            }
            final char c = src.charAt(pos);
            if (c == '\'') {
                string();
            } else if (isDigit(c) || (c == '.' && pos + 1 < n && isDigit(src.charAt(pos + 1)))) {
                number();
            } else if (isIdentifierStart(c)) {
                identifier();
            } else {
                operator(c);
            }
        }
    }

    private void skipBlanksAndComments() {
        final int n = src.length();
        while (pos < n) {
            final char c = src.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
                pos++;
            } else if (c == '-' && pos + 1 < n && src.charAt(pos + 1) == '-') {
                final int eol = src.indexOf('\n', pos + 2);
                pos = eol < 0 ? n : eol + 1;
            } else if (c == '/' && pos + 1 < n && src.charAt(pos + 1) == '*') {
                final int end = src.indexOf("*/", pos + 2);
                if (end < 0) {
                    throw error(pos, "unterminated comment");
                }
                pos = end + 2;
            } else {
                return;
            }
        }
    }

    private void string() {
        final int start = pos;
        final StringBuilder value = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= src.length()) {
                throw error(start, "unterminated string literal");
            }
            final char c = src.charAt(pos++);
            if (c == '\'') {
                if (pos < src.length() && src.charAt(pos) == '\'') {
                    value.append('\'');
                    pos++;
                } else {
                    break;
                }
            } else {
                value.append(c);
            }
        }
        tokens.add(new SqlToken(SqlToken.Kind.STRING, value.toString(), start + 1));
    }

    private void number() {
        final int n = src.length();
        final int start = pos;
        while (pos < n && isDigit(src.charAt(pos))) {
            pos++;
        }
        boolean decimal = false;
        if (pos < n && src.charAt(pos) == '.') {
            decimal = true;
            pos++;
            while (pos < n && isDigit(src.charAt(pos))) {
                pos++;
            }
        }
        if (pos < n && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
            // An 'e' not followed by an exponent is not part of the number: "5e" lexes as 5 then the identifier e,
            // which the parser then rejects, as RocketMQ does.
            int p = pos + 1;
            if (p < n && (src.charAt(p) == '+' || src.charAt(p) == '-')) {
                p++;
            }
            if (p < n && isDigit(src.charAt(p))) {
                while (p < n && isDigit(src.charAt(p))) {
                    p++;
                }
                pos = p;
                decimal = true;
            }
        }
        if (decimal) {
            tokens.add(new SqlToken(SqlToken.Kind.DECIMAL, src.substring(start, pos), start + 1));
            return;
        }
        final String digits = src.substring(start, pos);
        if (digits.length() > 1 && digits.charAt(0) == '0') {
            throw error(start, "leading zeros are not allowed in integer literal '" + digits + "'");
        }
        if (pos < n && (src.charAt(pos) == 'L' || src.charAt(pos) == 'l')) {
            pos++;
        }
        tokens.add(new SqlToken(SqlToken.Kind.INTEGER, digits, start + 1));
    }

    private void identifier() {
        final int n = src.length();
        final int start = pos;
        pos++;
        boolean dotted = false;
        while (pos < n) {
            final char c = src.charAt(pos);
            if (isIdentifierPart(c)) {
                pos++;
            } else if (c == '.' && dialect.javaIdentifiers() && pos + 1 < n && isIdentifierStart(src.charAt(pos + 1))) {
                dotted = true;
                pos += 2;
            } else {
                break;
            }
        }
        final String word = src.substring(start, pos);
        final SqlToken.Kind keyword = dotted ? null : SqlToken.keyword(word);
        if (keyword != null && dialect.reserves(keyword)) {
            tokens.add(new SqlToken(keyword, keyword.name(), start + 1));
        } else {
            tokens.add(new SqlToken(SqlToken.Kind.IDENTIFIER, word, start + 1));
        }
    }

    private void operator(final char c) {
        final int start = pos;
        final char next = pos + 1 < src.length() ? src.charAt(pos + 1) : '\0';
        final SqlToken.Kind kind;
        int length = 1;
        switch (c) {
            case '=': kind = SqlToken.Kind.EQ; break;
            case '<':
                if (next == '>') {
                    kind = SqlToken.Kind.NE;
                    length = 2;
                } else if (next == '=') {
                    kind = SqlToken.Kind.LE;
                    length = 2;
                } else {
                    kind = SqlToken.Kind.LT;
                }
                break;
            case '>':
                if (next == '=') {
                    kind = SqlToken.Kind.GE;
                    length = 2;
                } else {
                    kind = SqlToken.Kind.GT;
                }
                break;
            case '+': kind = SqlToken.Kind.PLUS; break;
            case '-': kind = SqlToken.Kind.MINUS; break;
            case '*': kind = SqlToken.Kind.STAR; break;
            case '/': kind = SqlToken.Kind.SLASH; break;
            case '%': kind = SqlToken.Kind.PERCENT; break;
            case '(': kind = SqlToken.Kind.LPAREN; break;
            case ')': kind = SqlToken.Kind.RPAREN; break;
            case ',': kind = SqlToken.Kind.COMMA; break;
            default:
                throw error(start, "unexpected character '" + c + "'");
        }
        pos += length;
        tokens.add(new SqlToken(kind, src.substring(start, pos), start + 1));
    }

    private boolean isIdentifierStart(final char c) {
        if (dialect.javaIdentifiers()) {
            return Character.isJavaIdentifierStart(c);
        }
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
    }

    private boolean isIdentifierPart(final char c) {
        if (dialect.javaIdentifiers()) {
            return Character.isJavaIdentifierPart(c);
        }
        return isIdentifierStart(c) || isDigit(c);
    }

    private static boolean isDigit(final char c) {
        return c >= '0' && c <= '9';
    }

    private FilterSyntaxException error(final int index, final String reason) {
        return new FilterSyntaxException(src, index + 1, reason);
    }
}
