package io.junction.core.filter;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A compiled SQL92 / JMS-selector property filter. Compile once per subscription; {@link #matches} is thread-safe and
 * allocates nothing except when a property holding a non-integral number is parsed.
 *
 * <p>Semantics (RocketMQ's, with SQL/JMS three-valued logic): property values are strings; a missing property makes a
 * comparison UNKNOWN and the filter matches only when the whole expression is TRUE. Numeric comparisons convert the
 * property text (exact long comparison when both sides are integral, else double); text that is not a number makes
 * the comparison UNKNOWN, as RocketMQ's failed conversion makes the message not match. {@code =} between a property
 * and a string compares strings exactly; booleans compare with the text "true"/"false".
 */
public final class SqlFilter implements MessageFilter {
    private final String expression;
    private final SqlDialect dialect;
    private final Condition condition;
    /** Identifier to property name as the compile-time mapping answered; empty when identifiers name properties. */
    private final Map<String, String> propertyNames;

    private SqlFilter(final String expression, final SqlDialect dialect, final Condition condition,
                      final Map<String, String> propertyNames) {
        this.expression = expression;
        this.dialect = dialect;
        this.condition = condition;
        this.propertyNames = Map.copyOf(propertyNames);
    }

    /** Compiles a RocketMQ SQL92 expression. */
    public static SqlFilter compile(final String expression) {
        return compile(expression, SqlDialect.SQL92);
    }

    /** Compiles an expression in the given dialect; identifiers name properties directly. */
    public static SqlFilter compile(final String expression, final SqlDialect dialect) {
        Objects.requireNonNull(expression, "expression");
        Objects.requireNonNull(dialect, "dialect");
        return new SqlFilter(expression, dialect, SqlParser.parse(expression, dialect, Function.identity()), Map.of());
    }

    /**
     * Compiles an expression whose identifiers are mapped to property names once, at compile time (CloudEvents
     * attributes, whose property naming the HTTP front-end owns).
     *
     * @param propertyNames identifier to property name; returning null rejects the identifier as unknown
     * @throws FilterSyntaxException if the expression is malformed or exceeds a limit
     */
    public static SqlFilter compile(final String expression, final SqlDialect dialect,
            final Function<String, String> propertyNames) {
        Objects.requireNonNull(expression, "expression");
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(propertyNames, "propertyNames");
        // The answers are kept so that the filter can be described without the function (FilterSpec.Sql).
        final Map<String, String> used = new HashMap<>();
        final Condition condition = SqlParser.parse(expression, dialect, name -> {
            final String property = propertyNames.apply(name);
            if (property != null) {
                used.put(name, property);
            }
            return property;
        });
        return new SqlFilter(expression, dialect, condition, used);
    }

    /** Always true: a property filter cannot be decided from the tag hash. */
    @Override
    public boolean matchesTagHash(final long tagHash) {
        return true;
    }

    @Override
    public boolean matches(final Map<String, String> properties) {
        return condition.test(properties == null ? Map.of() : properties) == Tri.TRUE;
    }

    /** The expression as written. */
    public String expression() {
        return expression;
    }

    public SqlDialect dialect() {
        return dialect;
    }

    /** The compiled tree, for diagnostics (constant parts appear folded). */
    String describeCompiled() {
        return condition.toString();
    }

    @Override
    public FilterSpec spec() {
        return new FilterSpec.Sql(expression, dialect, propertyNames);
    }

    @Override
    public String toString() {
        return dialect + "(" + expression + ")";
    }
}
