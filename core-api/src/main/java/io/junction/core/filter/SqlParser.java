package io.junction.core.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Recursive-descent parser for SQL filter expressions. Grammar, loosest binding first (keywords case-insensitive):
 *
 * <pre>
 * expression     := or EOF
 * or             := and ( OR and )*
 * and            := not ( AND not )*
 * not            := NOT not | predicate
 * predicate      := additive [ ( = | &lt;&gt; | &lt; | &lt;= | &gt; | &gt;= ) additive
 *                            | IS [NOT] NULL
 *                            | [NOT] BETWEEN additive AND additive
 *                            | [NOT] IN ( string ( , string )* )
 *                            | [NOT] LIKE string [ ESCAPE string ]
 *                            | [NOT] ( CONTAINS | STARTSWITH | ENDSWITH ) string ]
 * additive       := multiplicative ( ( + | - ) multiplicative )*
 * multiplicative := unary ( ( * | / | % ) unary )*
 * unary          := ( + | - ) unary | primary
 * primary        := string | integer | decimal | TRUE | FALSE | NULL | identifier | ( or )
 * </pre>
 *
 * <p>NOT binds looser than comparisons, as in SQL and JMS ({@code NOT a = 1} is {@code NOT (a = 1)}); RocketMQ's
 * ActiveMQ-derived grammar binds it to the operand instead, which no one can mean on string-valued properties.
 *
 * <p>Limits keep hostile input from exhausting the stack or memory: {@link #MAX_LENGTH} characters,
 * {@link #MAX_DEPTH} levels of nesting (parentheses, NOT, unary signs and each operator of an arithmetic chain, which
 * builds a left-deep tree), {@link #MAX_IN_ITEMS} items per IN list. AND/OR chains are n-ary nodes and do not count.
 */
final class SqlParser {
    /** Longest expression accepted, in chars. */
    static final int MAX_LENGTH = 64 * 1024;
    /** Deepest nesting accepted. */
    static final int MAX_DEPTH = 100;
    /** Most items in one IN list. */
    static final int MAX_IN_ITEMS = 1000;

    private final String expression;
    private final Function<String, String> propertyNames;
    private final ConditionBuilder build;
    private final List<SqlToken> tokens;
    private int index;
    private int depth;

    private SqlParser(final String expression, final SqlDialect dialect,
            final Function<String, String> propertyNames) {
        this.expression = expression;
        this.propertyNames = propertyNames;
        this.build = new ConditionBuilder(expression, dialect);
        this.tokens = SqlLexer.tokenize(expression, dialect);
    }

    /**
     * Compiles an expression into its root condition.
     *
     * @param propertyNames maps each identifier to the property it reads; null from it rejects the identifier
     */
    static Condition parse(final String expression, final SqlDialect dialect,
            final Function<String, String> propertyNames) {
        if (expression.length() > MAX_LENGTH) {
            throw new FilterSyntaxException(expression, MAX_LENGTH + 1,
                    "expression is longer than " + MAX_LENGTH + " characters");
        }
        final SqlParser parser = new SqlParser(expression, dialect, propertyNames);
        final Operand root = parser.or();
        if (parser.peek().kind() != SqlToken.Kind.EOF) {
            throw parser.unexpected("expected AND, OR or end of expression");
        }
        return parser.build.toCondition(root);
    }

    private Operand or() {
        final Operand first = and();
        if (peek().kind() != SqlToken.Kind.OR) {
            return first;
        }
        final List<Operand> operands = new ArrayList<>();
        operands.add(first);
        while (accept(SqlToken.Kind.OR)) {
            operands.add(and());
        }
        return build.or(operands);
    }

    private Operand and() {
        final Operand first = not();
        if (peek().kind() != SqlToken.Kind.AND) {
            return first;
        }
        final List<Operand> operands = new ArrayList<>();
        operands.add(first);
        while (accept(SqlToken.Kind.AND)) {
            operands.add(not());
        }
        return build.and(operands);
    }

    private Operand not() {
        final SqlToken token = peek();
        if (token.kind() != SqlToken.Kind.NOT) {
            return predicate();
        }
        next();
        enter(token);
        final Operand operand = not();
        depth--;
        return build.not(operand, token.column());
    }

    private Operand predicate() {
        final Operand left = additive();
        final SqlToken token = peek();
        final ComparisonOp comparison = comparisonOp(token.kind());
        if (comparison != null) {
            next();
            return build.compare(comparison, left, additive());
        }
        if (token.kind() == SqlToken.Kind.IS) {
            next();
            final boolean negated = accept(SqlToken.Kind.NOT);
            expect(SqlToken.Kind.NULL, negated ? "expected NULL" : "expected NOT or NULL");
            return build.isNull(left, negated);
        }
        final boolean negated = token.kind() == SqlToken.Kind.NOT;
        if (negated) {
            next();
        }
        final SqlToken operator = peek();
        switch (operatorKind(operator)) {
            case BETWEEN:
                next();
                final Operand low = additive();
                expect(SqlToken.Kind.AND, "expected AND");
                return build.between(left, low, additive(), negated);
            case IN:
                next();
                return build.in(left, inList(), negated);
            case LIKE:
                next();
                final SqlToken pattern = expect(SqlToken.Kind.STRING, "expected a string literal");
                SqlToken escape = null;
                if (operatorKind(peek()) == SqlToken.Kind.ESCAPE) {
                    next();
                    escape = expect(SqlToken.Kind.STRING, "expected a string literal");
                }
                return build.like(left, pattern, escape, negated);
            case CONTAINS:
                return stringTest(StringConditions.Test.CONTAINS, left, negated);
            case STARTSWITH:
                return stringTest(StringConditions.Test.STARTSWITH, left, negated);
            case ENDSWITH:
                return stringTest(StringConditions.Test.ENDSWITH, left, negated);
            default:
                if (negated) {
                    throw unexpected("expected BETWEEN, IN, LIKE, CONTAINS, STARTSWITH or ENDSWITH");
                }
                return left;
        }
    }

    private Operand stringTest(final StringConditions.Test test, final Operand left, final boolean negated) {
        next();
        final SqlToken literal = expect(SqlToken.Kind.STRING, "expected a string literal");
        return build.stringTest(test, left, literal.text(), negated);
    }

    private List<String> inList() {
        expect(SqlToken.Kind.LPAREN, "expected '('");
        final List<String> items = new ArrayList<>();
        do {
            final SqlToken item = expect(SqlToken.Kind.STRING, "expected a string literal");
            if (items.size() == MAX_IN_ITEMS) {
                throw new FilterSyntaxException(expression, item.column(),
                        "IN list has more than " + MAX_IN_ITEMS + " items");
            }
            items.add(item.text());
        } while (accept(SqlToken.Kind.COMMA));
        expect(SqlToken.Kind.RPAREN, "expected ',' or ')'");
        return items;
    }

    private Operand additive() {
        Operand left = multiplicative();
        final int outer = depth;
        while (peek().kind() == SqlToken.Kind.PLUS || peek().kind() == SqlToken.Kind.MINUS) {
            final SqlToken op = next();
            enter(op);
            left = build.arithmetic(op.kind() == SqlToken.Kind.PLUS ? '+' : '-', left, multiplicative());
        }
        depth = outer;
        return left;
    }

    private Operand multiplicative() {
        Operand left = unary();
        final int outer = depth;
        while (true) {
            final SqlToken.Kind kind = peek().kind();
            final char op = kind == SqlToken.Kind.STAR ? '*' : kind == SqlToken.Kind.SLASH ? '/'
                    : kind == SqlToken.Kind.PERCENT ? '%' : 0;
            if (op == 0) {
                break;
            }
            enter(next());
            left = build.arithmetic(op, left, unary());
        }
        depth = outer;
        return left;
    }

    private Operand unary() {
        final SqlToken token = peek();
        if (token.kind() == SqlToken.Kind.MINUS && tokens.get(index + 1).kind() == SqlToken.Kind.INTEGER) {
            // Folded here so that -9223372036854775808 (Long.MIN_VALUE) is a valid literal.
            next();
            return integer(next(), token.column(), true);
        }
        if (token.kind() != SqlToken.Kind.MINUS && token.kind() != SqlToken.Kind.PLUS) {
            return primary();
        }
        next();
        enter(token);
        final Operand operand = unary();
        depth--;
        return token.kind() == SqlToken.Kind.MINUS
                ? build.negate(operand, token.column()) : build.unaryPlus(operand, token.column());
    }

    private Operand primary() {
        final SqlToken token = next();
        switch (token.kind()) {
            case STRING:
                return Operand.string(token.text(), token.column());
            case INTEGER:
                return integer(token, token.column(), false);
            case DECIMAL:
                return Operand.number(new NumericExprs.DoubleConstant(Double.parseDouble(token.text())),
                        token.column(), true);
            case TRUE:
                return Operand.bool(LogicalConditions.TRUE, token.column(), true);
            case FALSE:
                return Operand.bool(LogicalConditions.FALSE, token.column(), true);
            case NULL:
                return Operand.nullLiteral(token.column());
            case IDENTIFIER:
                final String property = propertyNames.apply(token.text());
                if (property == null) {
                    throw new FilterSyntaxException(expression, token.column(),
                            "unknown attribute '" + token.text() + "'");
                }
                return Operand.property(property, token.column());
            case LPAREN:
                enter(token);
                final Operand inner = or();
                expect(SqlToken.Kind.RPAREN, "expected ')'");
                depth--;
                return inner.at(token.column());
            default:
                throw new FilterSyntaxException(expression, token.column(),
                        "expected a property, literal or '(' but found " + token.describe());
        }
    }

    private Operand integer(final SqlToken token, final int column, final boolean negative) {
        final long value;
        try {
            value = Long.parseLong(negative ? "-" + token.text() : token.text());
        } catch (NumberFormatException e) {
            throw new FilterSyntaxException(expression, column,
                    "integer literal " + (negative ? "-" : "") + token.text() + " is out of range");
        }
        return Operand.number(new NumericExprs.LongConstant(value), column, true);
    }

    /** Counts one nesting level opened by the token, refusing to go past {@link #MAX_DEPTH}. */
    private void enter(final SqlToken token) {
        if (++depth > MAX_DEPTH) {
            throw new FilterSyntaxException(expression, token.column(),
                    "expression is nested more than " + MAX_DEPTH + " levels deep");
        }
    }

    private static ComparisonOp comparisonOp(final SqlToken.Kind kind) {
        switch (kind) {
            case EQ: return ComparisonOp.EQ;
            case NE: return ComparisonOp.NE;
            case LT: return ComparisonOp.LT;
            case LE: return ComparisonOp.LE;
            case GT: return ComparisonOp.GT;
            case GE: return ComparisonOp.GE;
            default: return null;
        }
    }

    /**
     * The operator a token denotes after an operand. Words the dialect does not reserve (LIKE in SQL92, CONTAINS in
     * JMS, ...) arrive as identifiers; in this position an identifier cannot be anything else, so they are
     * recognised here without stealing those names from properties.
     */
    private static SqlToken.Kind operatorKind(final SqlToken token) {
        if (token.kind() == SqlToken.Kind.IDENTIFIER) {
            final SqlToken.Kind keyword = SqlToken.keyword(token.text());
            return keyword == null ? SqlToken.Kind.IDENTIFIER : keyword;
        }
        return token.kind();
    }

    private SqlToken peek() {
        return tokens.get(index);
    }

    private SqlToken next() {
        final SqlToken token = tokens.get(index);
        if (token.kind() != SqlToken.Kind.EOF) {
            index++;
        }
        return token;
    }

    private boolean accept(final SqlToken.Kind kind) {
        if (peek().kind() == kind) {
            next();
            return true;
        }
        return false;
    }

    private SqlToken expect(final SqlToken.Kind kind, final String expected) {
        if (peek().kind() != kind) {
            throw unexpected(expected);
        }
        return next();
    }

    private FilterSyntaxException unexpected(final String expected) {
        final SqlToken token = peek();
        return new FilterSyntaxException(expression, token.column(), expected + " but found " + token.describe());
    }
}
