package io.junction.core.filter;

import java.util.Map;

/** The numeric node kinds. Constants are folded at compile time, so only nodes touching a property survive. */
final class NumericExprs {
    /** Stands in for properties when folding constant sub-expressions at compile time. */
    static final Map<String, String> NO_PROPERTIES = Map.of();

    private NumericExprs() {
    }

    /** A number that never exists (e.g. the constant {@code 1 / 0}); anything compared with it is UNKNOWN. */
    static final NumericExpr UNKNOWN_NUMBER = new NumericExpr() {
        @Override
        public int kind(final Map<String, String> properties) {
            return UNKNOWN;
        }

        @Override
        public long longValue(final Map<String, String> properties) {
            throw new IllegalStateException("no value");
        }

        @Override
        public double doubleValue(final Map<String, String> properties) {
            throw new IllegalStateException("no value");
        }

        @Override
        public String toString() {
            return "NULL";
        }
    };

    /** The numeric constant a string literal denotes when compared with a number ({@code '5' = a + 0}). */
    static NumericExpr fromText(final String text) {
        final int kind = NumberText.classify(text);
        if (kind == NumericExpr.LONG) {
            return new LongConstant(NumberText.parseLong(text));
        }
        return kind == NumericExpr.DOUBLE ? new DoubleConstant(NumberText.parseDouble(text)) : UNKNOWN_NUMBER;
    }

    /** Evaluates a node that reads no property once, at compile time. */
    static NumericExpr fold(final NumericExpr expr) {
        switch (expr.kind(NO_PROPERTIES)) {
            case NumericExpr.LONG:
                return new LongConstant(expr.longValue(NO_PROPERTIES));
            case NumericExpr.DOUBLE:
                return new DoubleConstant(expr.doubleValue(NO_PROPERTIES));
            default:
                return UNKNOWN_NUMBER;
        }
    }

    /** An integer literal. */
    static final class LongConstant implements NumericExpr {
        final long value;

        LongConstant(final long value) {
            this.value = value;
        }

        @Override
        public int kind(final Map<String, String> properties) {
            return LONG;
        }

        @Override
        public long longValue(final Map<String, String> properties) {
            return value;
        }

        @Override
        public double doubleValue(final Map<String, String> properties) {
            return value;
        }

        @Override
        public String toString() {
            return Long.toString(value);
        }
    }

    /** A floating literal. */
    static final class DoubleConstant implements NumericExpr {
        final double value;

        DoubleConstant(final double value) {
            this.value = value;
        }

        @Override
        public int kind(final Map<String, String> properties) {
            return DOUBLE;
        }

        @Override
        public long longValue(final Map<String, String> properties) {
            throw new IllegalStateException("not a long");
        }

        @Override
        public double doubleValue(final Map<String, String> properties) {
            return value;
        }

        @Override
        public String toString() {
            return Double.toString(value);
        }
    }

    /**
     * A property read as a number; missing or non-numeric text has no value. A property typed as something other than a
     * number ({@link TypedProperties}) is {@link #NOT_A_NUMBER}.
     */
    static final class PropertyNumber implements NumericExpr {
        private final String name;

        PropertyNumber(final String name) {
            this.name = name;
        }

        @Override
        public int kind(final Map<String, String> properties) {
            final String text = properties.get(name);
            if (text == null) {
                return UNKNOWN;
            }
            return TypedProperties.isNot(properties, name, TypedProperties.Kind.NUMBER) ? NOT_A_NUMBER
                    : NumberText.classify(text);
        }

        @Override
        public long longValue(final Map<String, String> properties) {
            return NumberText.parseLong(properties.get(name));
        }

        @Override
        public double doubleValue(final Map<String, String> properties) {
            final String text = properties.get(name);
            return NumberText.classify(text) == LONG ? NumberText.parseLong(text) : NumberText.parseDouble(text);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Unary minus. */
    static final class Negate implements NumericExpr {
        private final NumericExpr operand;

        Negate(final NumericExpr operand) {
            this.operand = operand;
        }

        @Override
        public int kind(final Map<String, String> properties) {
            return operand.kind(properties);
        }

        @Override
        public long longValue(final Map<String, String> properties) {
            return -operand.longValue(properties);
        }

        @Override
        public double doubleValue(final Map<String, String> properties) {
            return -operand.doubleValue(properties);
        }

        @Override
        public String toString() {
            return "-(" + operand + ")";
        }
    }

    /**
     * {@code + - * / %} with Java semantics: long arithmetic (wrapping) when both operands are long, else double.
     * Integer division or remainder by zero has no value, where Java would throw.
     */
    static final class Arithmetic implements NumericExpr {
        private final char op;
        private final NumericExpr left;
        private final NumericExpr right;

        Arithmetic(final char op, final NumericExpr left, final NumericExpr right) {
            this.op = op;
            this.left = left;
            this.right = right;
        }

        @Override
        public int kind(final Map<String, String> properties) {
            final int leftKind = left.kind(properties);
            if (leftKind == UNKNOWN) {
                return UNKNOWN;
            }
            final int rightKind = right.kind(properties);
            if (rightKind == UNKNOWN) {
                return UNKNOWN;
            }
            if (leftKind == NOT_A_NUMBER || rightKind == NOT_A_NUMBER) {
                return NOT_A_NUMBER;
            }
            if (leftKind == LONG && rightKind == LONG) {
                if ((op == '/' || op == '%') && right.longValue(properties) == 0) {
                    return UNKNOWN;
                }
                return LONG;
            }
            return DOUBLE;
        }

        @Override
        public long longValue(final Map<String, String> properties) {
            final long l = left.longValue(properties);
            final long r = right.longValue(properties);
            switch (op) {
                case '+': return l + r;
                case '-': return l - r;
                case '*': return l * r;
                case '/': return l / r;
                default: return l % r;
            }
        }

        @Override
        public double doubleValue(final Map<String, String> properties) {
            // An integral sub-result keeps integer semantics inside a double context: (7 / 2) + 0.5 is 3.5.
            if (kind(properties) == LONG) {
                return longValue(properties);
            }
            final double l = left.doubleValue(properties);
            final double r = right.doubleValue(properties);
            switch (op) {
                case '+': return l + r;
                case '-': return l - r;
                case '*': return l * r;
                case '/': return l / r;
                default: return l % r;
            }
        }

        @Override
        public String toString() {
            return "(" + left + " " + op + " " + right + ")";
        }
    }
}
