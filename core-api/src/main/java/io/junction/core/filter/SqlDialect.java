package io.junction.core.filter;

import java.util.EnumSet;
import java.util.Set;

/**
 * Lexical and validation differences between the SQL filter front doors. Both dialects share one grammar and one
 * evaluator: LIKE/ESCAPE, arithmetic and the RocketMQ string operators (CONTAINS, STARTSWITH, ENDSWITH) are accepted
 * in both, as contextual words where the dialect does not reserve them, so a property named like one still works.
 */
public enum SqlDialect {
    /**
     * RocketMQ's SQL92: ASCII identifiers {@code [A-Za-z_$][A-Za-z0-9_$]*}, RocketMQ's reserved words, and RocketMQ's
     * compile-time check that constant BETWEEN bounds are ordered.
     */
    SQL92(false, true, EnumSet.of(SqlToken.Kind.AND, SqlToken.Kind.OR, SqlToken.Kind.NOT, SqlToken.Kind.BETWEEN,
            SqlToken.Kind.IN, SqlToken.Kind.IS, SqlToken.Kind.NULL, SqlToken.Kind.TRUE, SqlToken.Kind.FALSE,
            SqlToken.Kind.CONTAINS, SqlToken.Kind.STARTSWITH, SqlToken.Kind.ENDSWITH)),
    /**
     * JMS message selectors (used by AMQP/JMS front-ends): Java identifiers, dotted names such as {@code a.b.c}, the JMS
     * reserved words, and an inverted BETWEEN is simply false rather than an error.
     */
    JMS(true, false, EnumSet.of(SqlToken.Kind.AND, SqlToken.Kind.OR, SqlToken.Kind.NOT, SqlToken.Kind.BETWEEN,
            SqlToken.Kind.IN, SqlToken.Kind.IS, SqlToken.Kind.NULL, SqlToken.Kind.TRUE, SqlToken.Kind.FALSE,
            SqlToken.Kind.LIKE, SqlToken.Kind.ESCAPE));

    private final boolean javaIdentifiers;
    private final boolean checksBetweenBounds;
    private final Set<SqlToken.Kind> reserved;

    SqlDialect(final boolean javaIdentifiers, final boolean checksBetweenBounds, final Set<SqlToken.Kind> reserved) {
        this.javaIdentifiers = javaIdentifiers;
        this.checksBetweenBounds = checksBetweenBounds;
        this.reserved = reserved;
    }

    boolean javaIdentifiers() {
        return javaIdentifiers;
    }

    boolean checksBetweenBounds() {
        return checksBetweenBounds;
    }

    boolean reserves(final SqlToken.Kind keyword) {
        return reserved.contains(keyword);
    }
}
