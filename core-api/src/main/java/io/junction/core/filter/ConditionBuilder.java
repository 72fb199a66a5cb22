package io.junction.core.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * The semantic half of the SQL compiler: checks operand types (RocketMQ's compile-time rules), picks the node for each
 * operator and operand shape, and folds constant sub-expressions. The parser handles only grammar and positions.
 */
final class ConditionBuilder {
    private final String expression;
    private final SqlDialect dialect;

    ConditionBuilder(final String expression, final SqlDialect dialect) {
        this.expression = expression;
        this.dialect = dialect;
    }

    /** The operand as a condition: where a boolean is required (AND/OR/NOT operands, the whole expression). */
    Condition toCondition(final Operand operand) {
        switch (operand.type) {
            case BOOLEAN:
                return operand.condition;
            case PROPERTY:
                return new ComparisonConditions.PropertyAsBoolean(operand.text);
            case NULL:
                return LogicalConditions.UNKNOWN;
            default:
                throw error(operand.column, "expected a boolean expression but found " + operand.describe());
        }
    }

    Operand or(final List<Operand> operands) {
        return junction(operands, false);
    }

    Operand and(final List<Operand> operands) {
        return junction(operands, true);
    }

    Operand not(final Operand operand, final int column) {
        return Operand.bool(LogicalConditions.not(toCondition(operand)), column, operand.constant);
    }

    Operand compare(final ComparisonOp op, final Operand left, final Operand right) {
        for (final Operand side : List.of(left, right)) {
            if (side.type == Operand.Type.NULL) {
                throw error(side.column, "NULL cannot be compared with '" + op.symbol() + "'"
                        + (op.isOrdering() ? "" : ": use IS NULL or IS NOT NULL"));
            }
        }
        if (op.isOrdering()) {
            requireNumeric(left, op.symbol());
            requireNumeric(right, op.symbol());
            return result(numericComparison(op, left, right), left, right);
        }
        final boolean negated = op == ComparisonOp.NE;
        if (left.type == Operand.Type.BOOLEAN || right.type == Operand.Type.BOOLEAN) {
            for (final Operand side : List.of(left, right)) {
                if (side.type != Operand.Type.BOOLEAN && side.type != Operand.Type.PROPERTY) {
                    throw error(side.column, "cannot compare a boolean with " + side.describe());
                }
            }
            if (left.type == Operand.Type.PROPERTY || right.type == Operand.Type.PROPERTY) {
                final Operand property = left.type == Operand.Type.PROPERTY ? left : right;
                final Operand other = property == left ? right : left;
                return result(new ComparisonConditions.PropertyEqualsBoolean(property.text, toCondition(other),
                        negated), left, right);
            }
            return result(new ComparisonConditions.BooleanEquality(toCondition(left), toCondition(right), negated),
                    left, right);
        }
        if (left.type == Operand.Type.NUMBER || right.type == Operand.Type.NUMBER) {
            return result(numericComparison(op, left, right), left, right);
        }
        final Condition condition;
        if (left.type == Operand.Type.PROPERTY && right.type == Operand.Type.PROPERTY) {
            condition = new ComparisonConditions.PropertiesEqual(left.text, right.text, negated);
        } else if (left.type == Operand.Type.PROPERTY) {
            condition = new ComparisonConditions.PropertyEqualsString(left.text, right.text, negated);
        } else if (right.type == Operand.Type.PROPERTY) {
            condition = new ComparisonConditions.PropertyEqualsString(right.text, left.text, negated);
        } else {
            condition = LogicalConditions.constant(Tri.of(left.text.equals(right.text) != negated));
        }
        return result(condition, left, right);
    }

    Operand between(final Operand value, final Operand low, final Operand high, final boolean negated) {
        final String keyword = negated ? "NOT BETWEEN" : "BETWEEN";
        requireNumeric(value, keyword);
        requireNumeric(low, keyword);
        requireNumeric(high, keyword);
        final NumericExpr lowNumber = toNumber(low);
        final NumericExpr highNumber = toNumber(high);
        final boolean constantBounds = low.constant && high.constant
                && lowNumber != NumericExprs.UNKNOWN_NUMBER && highNumber != NumericExprs.UNKNOWN_NUMBER;
        if (constantBounds && dialect.checksBetweenBounds()
                && new ComparisonConditions.NumericComparison(ComparisonOp.GT, lowNumber, highNumber)
                        .test(NumericExprs.NO_PROPERTIES) == Tri.TRUE) {
            // RocketMQ rejects an empty range outright rather than accepting a filter that never matches.
            throw error(low.column, "BETWEEN lower bound " + lowNumber + " is greater than upper bound " + highNumber);
        }
        final Condition condition;
        if (value.type == Operand.Type.PROPERTY && constantBounds) {
            condition = new ComparisonConditions.PropertyBetween(value.text, lowNumber, highNumber, negated);
        } else if (negated) {
            condition = LogicalConditions.or(List.of(numericComparison(ComparisonOp.LT, value, low),
                    numericComparison(ComparisonOp.GT, value, high)));
        } else {
            condition = LogicalConditions.and(List.of(numericComparison(ComparisonOp.GE, value, low),
                    numericComparison(ComparisonOp.LE, value, high)));
        }
        return Operand.bool(condition, value.column, value.constant && low.constant && high.constant);
    }

    Operand in(final Operand value, final List<String> items, final boolean negated) {
        requireProperty(value, negated ? "NOT IN" : "IN");
        return Operand.bool(new StringConditions.PropertyIn(value.text, items.toArray(new String[0]), negated),
                value.column, false);
    }

    Operand like(final Operand value, final SqlToken pattern, final SqlToken escape, final boolean negated) {
        requireProperty(value, negated ? "NOT LIKE" : "LIKE");
        int escapeChar = -1;
        if (escape != null) {
            if (escape.text().length() != 1) {
                throw error(escape.column(), "ESCAPE must be a single character but found " + escape.describe());
            }
            escapeChar = escape.text().charAt(0);
        }
        final LikePattern compiled;
        try {
            compiled = LikePattern.compile(pattern.text(), escapeChar);
        } catch (IllegalArgumentException e) {
            throw error(pattern.column(), e.getMessage());
        }
        return Operand.bool(new StringConditions.PropertyLike(value.text, compiled, negated), value.column, false);
    }

    Operand stringTest(final StringConditions.Test test, final Operand value, final String literal,
            final boolean negated) {
        if (value.type == Operand.Type.STRING) {
            return Operand.bool(LogicalConditions.constant(Tri.of(test.apply(value.text, literal) != negated)),
                    value.column, true);
        }
        requireProperty(value, (negated ? "NOT " : "") + test);
        return Operand.bool(new StringConditions.PropertyStringTest(value.text, test, literal, negated),
                value.column, false);
    }

    Operand isNull(final Operand value, final boolean negated) {
        final Condition condition;
        switch (value.type) {
            case PROPERTY:
                condition = new ComparisonConditions.PropertyIsNull(value.text, negated);
                break;
            case NULL:
                condition = LogicalConditions.constant(Tri.of(!negated));
                break;
            case STRING:
                condition = LogicalConditions.constant(Tri.of(negated));
                break;
            case NUMBER:
                condition = new ComparisonConditions.NumberIsNull(value.number, negated);
                break;
            default:
                condition = new ComparisonConditions.ConditionIsNull(value.condition, negated);
                break;
        }
        return Operand.bool(condition, value.column, value.constant);
    }

    Operand arithmetic(final char op, final Operand left, final Operand right) {
        final String symbol = String.valueOf(op);
        requireNumeric(left, symbol);
        requireNumeric(right, symbol);
        return Operand.number(new NumericExprs.Arithmetic(op, toNumber(left), toNumber(right)), left.column,
                left.constant && right.constant);
    }

    Operand negate(final Operand value, final int column) {
        requireNumeric(value, "-");
        return Operand.number(new NumericExprs.Negate(toNumber(value)), column, value.constant);
    }

    Operand unaryPlus(final Operand value, final int column) {
        requireNumeric(value, "+");
        return Operand.number(toNumber(value), column, value.constant);
    }

    private Operand junction(final List<Operand> operands, final boolean isAnd) {
        final List<Condition> conditions = new ArrayList<>(operands.size());
        boolean constant = true;
        for (final Operand operand : operands) {
            conditions.add(toCondition(operand));
            constant &= operand.constant;
        }
        final Condition condition = isAnd ? LogicalConditions.and(conditions) : LogicalConditions.or(conditions);
        return Operand.bool(condition, operands.get(0).column, constant);
    }

    private Condition numericComparison(final ComparisonOp op, final Operand left, final Operand right) {
        final NumericExpr l = toNumber(left);
        final NumericExpr r = toNumber(right);
        if (l == NumericExprs.UNKNOWN_NUMBER || r == NumericExprs.UNKNOWN_NUMBER) {
            return LogicalConditions.UNKNOWN;
        }
        if (left.type == Operand.Type.PROPERTY && right.constant) {
            return new ComparisonConditions.PropertyVersusNumber(left.text, op, r);
        }
        if (right.type == Operand.Type.PROPERTY && left.constant) {
            return new ComparisonConditions.PropertyVersusNumber(right.text, op.flip(), l);
        }
        return new ComparisonConditions.NumericComparison(op, l, r);
    }

    private static NumericExpr toNumber(final Operand operand) {
        switch (operand.type) {
            case NUMBER:
                return operand.number;
            case PROPERTY:
                return new NumericExprs.PropertyNumber(operand.text);
            case STRING:
                return NumericExprs.fromText(operand.text);
            default:
                throw new IllegalStateException("not numeric: " + operand.type);
        }
    }

    private static Operand result(final Condition condition, final Operand left, final Operand right) {
        return Operand.bool(condition, left.column, left.constant && right.constant);
    }

    private void requireNumeric(final Operand operand, final String operator) {
        if (!operand.isNumericLike()) {
            throw error(operand.column,
                    "expected a number or property for '" + operator + "' but found " + operand.describe());
        }
    }

    private void requireProperty(final Operand operand, final String operator) {
        if (operand.type != Operand.Type.PROPERTY) {
            throw error(operand.column, "expected a property before " + operator + " but found " + operand.describe());
        }
    }

    private FilterSyntaxException error(final int column, final String reason) {
        return new FilterSyntaxException(expression, column, reason);
    }
}
