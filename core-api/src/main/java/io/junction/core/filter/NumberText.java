package io.junction.core.filter;

/**
 * Allocation-free recognition of numbers in property values (properties are stored as strings).
 *
 * <p>Accepted text: optional sign, digits, optional fraction, optional exponent ({@code 42}, {@code -7},
 * {@code +3.5}, {@code .5}, {@code 5.}, {@code 1e3}). Text that is integral and fits a long is LONG (compared exactly,
 * as RocketMQ compares {@code Long} values); other numeric text is DOUBLE. Anything else (blank, whitespace,
 * {@code NaN}, hex, a type suffix) is not a number, which makes a numeric comparison UNKNOWN: validating here first
 * means {@link Double#parseDouble} never throws on the evaluation path.
 */
final class NumberText {
    private static final String LONG_MAX_DIGITS = "9223372036854775807";
    private static final String LONG_MIN_DIGITS = "9223372036854775808";

    private NumberText() {
    }

    /** Classifies the text as {@link NumericExpr#LONG}, {@link NumericExpr#DOUBLE} or {@link NumericExpr#UNKNOWN}. */
    static int classify(final String s) {
        final int n = s.length();
        if (n == 0) {
            return NumericExpr.UNKNOWN;
        }
        int i = 0;
        final char first = s.charAt(0);
        if (first == '+' || first == '-') {
            i++;
        }
        final int intStart = i;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        final int intDigits = i - intStart;
        if (i == n) {
            if (intDigits == 0) {
                return NumericExpr.UNKNOWN;
            }
            return fitsInLong(s, intStart, n, first == '-') ? NumericExpr.LONG : NumericExpr.DOUBLE;
        }
        int fractionDigits = 0;
        if (s.charAt(i) == '.') {
            final int fractionStart = ++i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            fractionDigits = i - fractionStart;
        }
        if (intDigits + fractionDigits == 0) {
            return NumericExpr.UNKNOWN;
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                i++;
            }
            final int exponentStart = i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == exponentStart) {
                return NumericExpr.UNKNOWN;
            }
        }
        return i == n ? NumericExpr.DOUBLE : NumericExpr.UNKNOWN;
    }

    /** Parses text that {@link #classify} reported as LONG. */
    static long parseLong(final String s) {
        final boolean negative = s.charAt(0) == '-';
        int i = negative || s.charAt(0) == '+' ? 1 : 0;
        // Accumulate negatively so Long.MIN_VALUE parses without overflow.
        long value = 0;
        for (final int n = s.length(); i < n; i++) {
            value = value * 10 - (s.charAt(i) - '0');
        }
        return negative ? value : -value;
    }

    /** Parses text that {@link #classify} reported as LONG or DOUBLE. */
    static double parseDouble(final String s) {
        return Double.parseDouble(s);
    }

    private static boolean fitsInLong(final String s, final int from, final int to, final boolean negative) {
        int start = from;
        while (start < to - 1 && s.charAt(start) == '0') {
            start++;
        }
        final int digits = to - start;
        if (digits != LONG_MAX_DIGITS.length()) {
            return digits < LONG_MAX_DIGITS.length();
        }
        final String limit = negative ? LONG_MIN_DIGITS : LONG_MAX_DIGITS;
        for (int i = 0; i < digits; i++) {
            final char c = s.charAt(start + i);
            final char l = limit.charAt(i);
            if (c != l) {
                return c < l;
            }
        }
        return true;
    }

    private static boolean isDigit(final char c) {
        return c >= '0' && c <= '9';
    }
}
