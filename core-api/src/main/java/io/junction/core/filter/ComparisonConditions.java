package io.junction.core.filter;

import java.util.Map;

/**
 * Comparison, BETWEEN, IS NULL and boolean-property nodes. The shapes almost every subscription uses
 * ({@code prop <op> constant}, {@code prop = 'text'}, {@code prop BETWEEN c1 AND c2}, {@code prop IS NULL}) get
 * dedicated nodes that read the property once and hold the constant pre-converted; everything else goes through the
 * generic {@link NumericComparison}. Where the properties carry types ({@link TypedProperties}), a comparison with a
 * value of another kind is FALSE.
 */
final class ComparisonConditions {
    private ComparisonConditions() {
    }

    /** {@code prop <op> numeric constant}: property text converted per message, exact long comparison when possible. */
    static final class PropertyVersusNumber implements Condition {
        private final String name;
        private final ComparisonOp op;
        private final int mask;
        private final boolean constantIsLong;
        private final long longConstant;
        private final double doubleConstant;

        PropertyVersusNumber(final String name, final ComparisonOp op, final NumericExpr constant) {
            this.name = name;
            this.op = op;
            this.mask = op.mask();
            this.constantIsLong = constant.kind(NumericExprs.NO_PROPERTIES) == NumericExpr.LONG;
            this.longConstant = constantIsLong ? constant.longValue(NumericExprs.NO_PROPERTIES) : 0;
            this.doubleConstant = constant.doubleValue(NumericExprs.NO_PROPERTIES);
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String text = properties.get(name);
            if (text == null) {
                return Tri.UNKNOWN;
            }
            if (TypedProperties.isNot(properties, name, TypedProperties.Kind.NUMBER)) {
                return Tri.FALSE;
            }
            final int kind = NumberText.classify(text);
            if (kind == NumericExpr.LONG) {
                final long value = NumberText.parseLong(text);
                return Tri.of(constantIsLong
                        ? ComparisonOp.accepts(mask, Long.compare(value, longConstant))
                        : ComparisonOp.acceptsDoubles(mask, value, doubleConstant));
            }
            if (kind == NumericExpr.DOUBLE) {
                return Tri.of(ComparisonOp.acceptsDoubles(mask, NumberText.parseDouble(text), doubleConstant));
            }
            return Tri.UNKNOWN;
        }

        @Override
        public String toString() {
            return name + " " + op.symbol() + " " + (constantIsLong ? Long.toString(longConstant) : doubleConstant);
        }
    }

    /** Any two numeric operands. */
    static final class NumericComparison implements Condition {
        private final ComparisonOp op;
        private final int mask;
        private final NumericExpr left;
        private final NumericExpr right;

        NumericComparison(final ComparisonOp op, final NumericExpr left, final NumericExpr right) {
            this.op = op;
            this.mask = op.mask();
            this.left = left;
            this.right = right;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final int leftKind = left.kind(properties);
            if (leftKind == NumericExpr.UNKNOWN) {
                return Tri.UNKNOWN;
            }
            final int rightKind = right.kind(properties);
            if (rightKind == NumericExpr.UNKNOWN) {
                return Tri.UNKNOWN;
            }
            if (leftKind == NumericExpr.NOT_A_NUMBER || rightKind == NumericExpr.NOT_A_NUMBER) {
                return Tri.FALSE;
            }
            if (leftKind == NumericExpr.LONG && rightKind == NumericExpr.LONG) {
                return Tri.of(ComparisonOp.accepts(mask,
                        Long.compare(left.longValue(properties), right.longValue(properties))));
            }
            return Tri.of(ComparisonOp.acceptsDoubles(mask, left.doubleValue(properties),
                    right.doubleValue(properties)));
        }

        @Override
        public String toString() {
            return left + " " + op.symbol() + " " + right;
        }
    }

    /** {@code prop [NOT] BETWEEN c1 AND c2} with constant bounds: one property read for both bounds. */
    static final class PropertyBetween implements Condition {
        private final String name;
        private final boolean negated;
        private final boolean lowIsLong;
        private final long lowLong;
        private final double lowDouble;
        private final boolean highIsLong;
        private final long highLong;
        private final double highDouble;

        PropertyBetween(final String name, final NumericExpr low, final NumericExpr high, final boolean negated) {
            this.name = name;
            this.negated = negated;
            this.lowIsLong = low.kind(NumericExprs.NO_PROPERTIES) == NumericExpr.LONG;
            this.lowLong = lowIsLong ? low.longValue(NumericExprs.NO_PROPERTIES) : 0;
            this.lowDouble = low.doubleValue(NumericExprs.NO_PROPERTIES);
            this.highIsLong = high.kind(NumericExprs.NO_PROPERTIES) == NumericExpr.LONG;
            this.highLong = highIsLong ? high.longValue(NumericExprs.NO_PROPERTIES) : 0;
            this.highDouble = high.doubleValue(NumericExprs.NO_PROPERTIES);
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String text = properties.get(name);
            if (text == null) {
                return Tri.UNKNOWN;
            }
            if (TypedProperties.isNot(properties, name, TypedProperties.Kind.NUMBER)) {
                return Tri.FALSE; // NOT BETWEEN too: the comparison itself is of unlike types
            }
            final int kind = NumberText.classify(text);
            if (kind == NumericExpr.UNKNOWN) {
                return Tri.UNKNOWN;
            }
            final boolean isLong = kind == NumericExpr.LONG;
            final long longValue = isLong ? NumberText.parseLong(text) : 0;
            final double doubleValue = isLong ? longValue : NumberText.parseDouble(text);
            final boolean inRange =
                    ComparisonOp.acceptsNumbers(ComparisonOp.GE.mask(), isLong, longValue, doubleValue,
                            lowIsLong, lowLong, lowDouble)
                    && ComparisonOp.acceptsNumbers(ComparisonOp.LE.mask(), isLong, longValue, doubleValue,
                            highIsLong, highLong, highDouble);
            return Tri.of(inRange != negated);
        }

        @Override
        public String toString() {
            return name + (negated ? " NOT BETWEEN " : " BETWEEN ")
                    + (lowIsLong ? Long.toString(lowLong) : lowDouble) + " AND "
                    + (highIsLong ? Long.toString(highLong) : highDouble);
        }
    }

    /** {@code prop = 'text'} / {@code prop <> 'text'}: exact, case-sensitive string equality. */
    static final class PropertyEqualsString implements Condition {
        private final String name;
        private final String value;
        private final boolean negated;

        PropertyEqualsString(final String name, final String value, final boolean negated) {
            this.name = name;
            this.value = value;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String text = properties.get(name);
            if (text == null) {
                return Tri.UNKNOWN;
            }
            if (TypedProperties.isNot(properties, name, TypedProperties.Kind.STRING)) {
                return Tri.FALSE;
            }
            return Tri.of(text.equals(value) != negated);
        }

        @Override
        public String toString() {
            return name + (negated ? " <> '" : " = '") + value + "'";
        }
    }

    /**
     * {@code a = b} on two properties: string equality, as RocketMQ compares two string values; with typed properties,
     * values of one kind (numbers by value) and FALSE for unlike kinds.
     */
    static final class PropertiesEqual implements Condition {
        private final String left;
        private final String right;
        private final boolean negated;

        PropertiesEqual(final String left, final String right, final boolean negated) {
            this.left = left;
            this.right = right;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String l = properties.get(left);
            if (l == null) {
                return Tri.UNKNOWN;
            }
            final String r = properties.get(right);
            if (r == null) {
                return Tri.UNKNOWN;
            }
            if (properties instanceof TypedProperties typed) {
                final TypedProperties.Kind kind = typed.kindOf(left);
                if (kind != typed.kindOf(right) || kind == TypedProperties.Kind.OTHER) {
                    return Tri.FALSE;
                }
                if (kind == TypedProperties.Kind.NUMBER) {
                    return numbersEqual(l, r);
                }
            }
            return Tri.of(l.equals(r) != negated);
        }

        private int numbersEqual(final String l, final String r) {
            final int lk = NumberText.classify(l);
            final int rk = NumberText.classify(r);
            if (lk == NumericExpr.UNKNOWN || rk == NumericExpr.UNKNOWN) {
                return Tri.UNKNOWN;
            }
            final boolean equal = lk == NumericExpr.LONG && rk == NumericExpr.LONG
                    ? NumberText.parseLong(l) == NumberText.parseLong(r)
                    : NumberText.parseDouble(l) == NumberText.parseDouble(r);
            return Tri.of(equal != negated);
        }

        @Override
        public String toString() {
            return left + (negated ? " <> " : " = ") + right;
        }
    }

    /** Equality of two boolean operands ({@code flag = TRUE}, {@code (a > 1) <> (b > 1)}). */
    static final class BooleanEquality implements Condition {
        private final Condition left;
        private final Condition right;
        private final boolean negated;

        BooleanEquality(final Condition left, final Condition right, final boolean negated) {
            this.left = left;
            this.right = right;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final int l = left.test(properties);
            if (l == Tri.UNKNOWN) {
                return Tri.UNKNOWN;
            }
            final int r = right.test(properties);
            return r == Tri.UNKNOWN ? Tri.UNKNOWN : Tri.of((l == r) != negated);
        }

        @Override
        public String toString() {
            return left + (negated ? " <> " : " = ") + right;
        }
    }

    /**
     * A property used as a boolean: "true"/"false" in any case (how booleans travel as property strings); other text
     * or a missing property is UNKNOWN; a typed property that is not a boolean is FALSE.
     */
    static final class PropertyAsBoolean implements Condition {
        private final String name;

        PropertyAsBoolean(final String name) {
            this.name = name;
        }

        @Override
        public int test(final Map<String, String> properties) {
            return booleanValue(properties, name);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** The boolean a property holds: TRUE, FALSE, or UNKNOWN when it is missing or not "true"/"false". */
    private static int booleanValue(final Map<String, String> properties, final String name) {
        final String text = properties.get(name);
        if (text == null) {
            return Tri.UNKNOWN;
        }
        if (TypedProperties.isNot(properties, name, TypedProperties.Kind.BOOLEAN)) {
            return Tri.FALSE;
        }
        if (text.equalsIgnoreCase("true")) {
            return Tri.TRUE;
        }
        return text.equalsIgnoreCase("false") ? Tri.FALSE : Tri.UNKNOWN;
    }

    /**
     * {@code prop = <boolean>} / {@code prop <> <boolean>}: like {@link BooleanEquality}, but a typed property that is
     * not a boolean makes both forms FALSE (a comparison of unlike types).
     */
    static final class PropertyEqualsBoolean implements Condition {
        private final String name;
        private final Condition other;
        private final boolean negated;

        PropertyEqualsBoolean(final String name, final Condition other, final boolean negated) {
            this.name = name;
            this.other = other;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            final String text = properties.get(name);
            if (text == null) {
                return Tri.UNKNOWN;
            }
            if (TypedProperties.isNot(properties, name, TypedProperties.Kind.BOOLEAN)) {
                return Tri.FALSE;
            }
            final int l = booleanValue(properties, name);
            if (l == Tri.UNKNOWN) {
                return Tri.UNKNOWN;
            }
            final int r = other.test(properties);
            return r == Tri.UNKNOWN ? Tri.UNKNOWN : Tri.of((l == r) != negated);
        }

        @Override
        public String toString() {
            return name + (negated ? " <> " : " = ") + other;
        }
    }

    /** {@code prop IS [NOT] NULL}: never UNKNOWN. */
    static final class PropertyIsNull implements Condition {
        private final String name;
        private final boolean negated;

        PropertyIsNull(final String name, final boolean negated) {
            this.name = name;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            return Tri.of((properties.get(name) == null) != negated);
        }

        @Override
        public String toString() {
            return name + (negated ? " IS NOT NULL" : " IS NULL");
        }
    }

    /** {@code <numeric expression> IS [NOT] NULL}: null when it has no value ({@code a + 1} with {@code a} missing). */
    static final class NumberIsNull implements Condition {
        private final NumericExpr operand;
        private final boolean negated;

        NumberIsNull(final NumericExpr operand, final boolean negated) {
            this.operand = operand;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            return Tri.of((operand.kind(properties) == NumericExpr.UNKNOWN) != negated);
        }

        @Override
        public String toString() {
            return operand + (negated ? " IS NOT NULL" : " IS NULL");
        }
    }

    /** {@code <boolean expression> IS [NOT] NULL}: null when UNKNOWN. */
    static final class ConditionIsNull implements Condition {
        private final Condition operand;
        private final boolean negated;

        ConditionIsNull(final Condition operand, final boolean negated) {
            this.operand = operand;
            this.negated = negated;
        }

        @Override
        public int test(final Map<String, String> properties) {
            return Tri.of((operand.test(properties) == Tri.UNKNOWN) != negated);
        }

        @Override
        public String toString() {
            return "(" + operand + (negated ? ") IS NOT NULL" : ") IS NULL");
        }
    }
}
