package io.junction.core.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * AND, OR, NOT and constants, with Kleene three-valued logic. AND/OR are n-ary (a chain of 1000 ANDs is one node, not
 * a 1000-deep tree) and short-circuit. Factories drop what constant operands make irrelevant: {@code x AND TRUE} is
 * {@code x}, {@code x OR TRUE} is TRUE, {@code x AND FALSE} is FALSE — each exact in three-valued logic.
 */
final class LogicalConditions {
    static final Condition TRUE = new Constant(Tri.TRUE);
    static final Condition FALSE = new Constant(Tri.FALSE);
    static final Condition UNKNOWN = new Constant(Tri.UNKNOWN);

    private LogicalConditions() {
    }

    static Condition constant(final int value) {
        return value == Tri.TRUE ? TRUE : value == Tri.FALSE ? FALSE : UNKNOWN;
    }

    /** Evaluates a condition that reads no property once, at compile time. */
    static Condition fold(final Condition condition) {
        return constant(condition.test(NumericExprs.NO_PROPERTIES));
    }

    static Condition and(final List<Condition> operands) {
        return junction(operands, true);
    }

    static Condition or(final List<Condition> operands) {
        return junction(operands, false);
    }

    static Condition not(final Condition operand) {
        if (operand instanceof Constant) {
            return constant(Tri.not(((Constant) operand).value));
        }
        if (operand instanceof Not) {
            return ((Not) operand).operand;
        }
        return new Not(operand);
    }

    private static Condition junction(final List<Condition> operands, final boolean isAnd) {
        final Condition identity = isAnd ? TRUE : FALSE;
        final Condition absorbing = isAnd ? FALSE : TRUE;
        final List<Condition> kept = new ArrayList<>(operands.size());
        for (final Condition c : operands) {
            if (c == absorbing) {
                return absorbing;
            }
            if (c == identity) {
                continue;
            }
            // Flatten (a AND b) AND c into one node so evaluation depth does not grow with parentheses.
            if (isAnd && c instanceof And) {
                kept.addAll(List.of(((And) c).operands));
            } else if (!isAnd && c instanceof Or) {
                kept.addAll(List.of(((Or) c).operands));
            } else {
                kept.add(c);
            }
        }
        if (kept.isEmpty()) {
            return identity;
        }
        if (kept.size() == 1) {
            return kept.get(0);
        }
        final Condition[] array = kept.toArray(new Condition[0]);
        return isAnd ? new And(array) : new Or(array);
    }

    /** A value known at compile time. */
    static final class Constant implements Condition {
        final int value;

        Constant(final int value) {
            this.value = value;
        }

        @Override
        public int test(final Map<String, String> properties) {
            return value;
        }

        @Override
        public String toString() {
            return Tri.name(value);
        }
    }

    /** FALSE as soon as one operand is FALSE; else UNKNOWN if any operand is UNKNOWN; else TRUE. */
    static final class And implements Condition {
        private final Condition[] operands;

        And(final Condition[] operands) {
            this.operands = operands;
        }

        @Override
        public int test(final Map<String, String> properties) {
            int result = Tri.TRUE;
            for (final Condition operand : operands) {
                final int value = operand.test(properties);
                if (value == Tri.FALSE) {
                    return Tri.FALSE;
                }
                if (value == Tri.UNKNOWN) {
                    result = Tri.UNKNOWN;
                }
            }
            return result;
        }

        @Override
        public String toString() {
            return join(operands, " AND ");
        }
    }

    /** TRUE as soon as one operand is TRUE; else UNKNOWN if any operand is UNKNOWN; else FALSE. */
    static final class Or implements Condition {
        private final Condition[] operands;

        Or(final Condition[] operands) {
            this.operands = operands;
        }

        @Override
        public int test(final Map<String, String> properties) {
            int result = Tri.FALSE;
            for (final Condition operand : operands) {
                final int value = operand.test(properties);
                if (value == Tri.TRUE) {
                    return Tri.TRUE;
                }
                if (value == Tri.UNKNOWN) {
                    result = Tri.UNKNOWN;
                }
            }
            return result;
        }

        @Override
        public String toString() {
            return join(operands, " OR ");
        }
    }

    /** NOT UNKNOWN is UNKNOWN. */
    static final class Not implements Condition {
        private final Condition operand;

        Not(final Condition operand) {
            this.operand = operand;
        }

        @Override
        public int test(final Map<String, String> properties) {
            return Tri.not(operand.test(properties));
        }

        @Override
        public String toString() {
            return "NOT (" + operand + ")";
        }
    }

    private static String join(final Condition[] operands, final String separator) {
        final StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < operands.length; i++) {
            if (i > 0) {
                sb.append(separator);
            }
            sb.append(operands[i]);
        }
        return sb.append(')').toString();
    }
}
