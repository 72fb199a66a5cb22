package io.junction.core.filter;

/**
 * Comparison operators. Each carries a 3-bit mask of the outcomes of {@code compare(left, right)} it accepts (bit 0:
 * less, bit 1: equal, bit 2: greater), so a node tests a comparison with a shift instead of a switch.
 */
enum ComparisonOp {
    EQ("=", 0b010),
    NE("<>", 0b101),
    LT("<", 0b001),
    LE("<=", 0b011),
    GT(">", 0b100),
    GE(">=", 0b110);

    private final String symbol;
    private final int mask;

    ComparisonOp(final String symbol, final int mask) {
        this.symbol = symbol;
        this.mask = mask;
    }

    String symbol() {
        return symbol;
    }

    int mask() {
        return mask;
    }

    boolean isOrdering() {
        return this != EQ && this != NE;
    }

    /** The operator that gives the same answer with the operands swapped ({@code 5 < a} is {@code a > 5}). */
    ComparisonOp flip() {
        switch (this) {
            case LT: return GT;
            case LE: return GE;
            case GT: return LT;
            case GE: return LE;
            default: return this;
        }
    }

    /** Whether an operator with this mask accepts a comparison result (negative, zero, positive). */
    static boolean accepts(final int mask, final int compareResult) {
        return ((mask >>> (Integer.signum(compareResult) + 1)) & 1) != 0;
    }

    /** Java double comparison semantics: with NaN on either side only {@code <>} holds. */
    static boolean acceptsDoubles(final int mask, final double left, final double right) {
        if (left < right) {
            return accepts(mask, -1);
        }
        if (left > right) {
            return accepts(mask, 1);
        }
        if (left == right) {
            return accepts(mask, 0);
        }
        return mask == NE.mask;
    }

    /** Long-versus-long when both are integral, else both widened to double (Java binary numeric promotion). */
    static boolean acceptsNumbers(final int mask, final boolean leftIsLong, final long leftLong,
            final double leftDouble, final boolean rightIsLong, final long rightLong, final double rightDouble) {
        if (leftIsLong && rightIsLong) {
            return accepts(mask, Long.compare(leftLong, rightLong));
        }
        return acceptsDoubles(mask, leftIsLong ? leftLong : leftDouble, rightIsLong ? rightLong : rightDouble);
    }
}
