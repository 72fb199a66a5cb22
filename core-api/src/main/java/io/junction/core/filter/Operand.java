package io.junction.core.filter;

/**
 * What the parser knows about a sub-expression while compiling: its static type, whether it reads any property, and
 * the compiled node. Lives only during compilation; the static type is what lets RocketMQ's compile-time rules be
 * enforced (no string literal in {@code >}, no {@code = NULL}) and the right specialised node be chosen.
 */
final class Operand {
    /** Static type of a sub-expression. */
    enum Type {
        /** A property reference: a string at run time, convertible to number or boolean on demand. */
        PROPERTY,
        /** A string literal. */
        STRING,
        /** A numeric literal or arithmetic expression. */
        NUMBER,
        /** TRUE, FALSE or a condition. */
        BOOLEAN,
        /** The NULL literal. */
        NULL
    }

    final Type type;
    /** 1-based column of the first token, for error messages. */
    final int column;
    /** True when no property is read, so the value can be folded at compile time. */
    final boolean constant;
    /** Property name (PROPERTY) or string value (STRING). */
    final String text;
    /** Set for NUMBER. */
    final NumericExpr number;
    /** Set for BOOLEAN. */
    final Condition condition;

    private Operand(final Type type, final int column, final boolean constant, final String text,
            final NumericExpr number, final Condition condition) {
        this.type = type;
        this.column = column;
        this.constant = constant;
        this.text = text;
        this.number = number;
        this.condition = condition;
    }

    static Operand property(final String name, final int column) {
        return new Operand(Type.PROPERTY, column, false, name, null, null);
    }

    static Operand string(final String value, final int column) {
        return new Operand(Type.STRING, column, true, value, null, null);
    }

    static Operand number(final NumericExpr number, final int column, final boolean constant) {
        return new Operand(Type.NUMBER, column, constant, null, constant ? NumericExprs.fold(number) : number, null);
    }

    static Operand bool(final Condition condition, final int column, final boolean constant) {
        return new Operand(Type.BOOLEAN, column, constant, null,
                null, constant ? LogicalConditions.fold(condition) : condition);
    }

    static Operand nullLiteral(final int column) {
        return new Operand(Type.NULL, column, true, null, null, null);
    }

    /** The same value reported at another column (a parenthesised operand is reported at its '('). */
    Operand at(final int newColumn) {
        return new Operand(type, newColumn, constant, text, number, condition);
    }

    boolean isNumericLike() {
        return type == Type.NUMBER || type == Type.PROPERTY;
    }

    /** How the operand is named in error messages. */
    String describe() {
        switch (type) {
            case PROPERTY: return "property '" + text + "'";
            case STRING: return "string literal '" + text.replace("'", "''") + "'";
            case NUMBER: return "numeric expression";
            case BOOLEAN: return "boolean expression";
            default: return "NULL";
        }
    }
}
