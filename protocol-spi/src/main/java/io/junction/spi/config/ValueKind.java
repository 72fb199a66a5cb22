package io.junction.spi.config;

import java.util.Locale;

/** The type of a configuration value: how it is written, checked and parsed. */
public enum ValueKind {
    /** Any text, trimmed. */
    STRING("text"),
    /** {@code true} or {@code false}. */
    BOOLEAN("true or false"),
    /** A whole number from 0 to 2147483647. */
    INT("a whole number >= 0"),
    /** A TCP port, 0 to 65535; 0 lets the system choose a free one. */
    PORT("a port number 0-65535"),
    /** A byte count: digits with an optional k, m or g suffix (powers of 1024), e.g. 4k, 64m, 1g. */
    SIZE("a size such as 4096, 4k, 64m or 1g"),
    /** A {@link #SIZE} below 2g, for sizes held in an int (mapped files, buffers). */
    INT_SIZE("a size below 2g such as 4096, 4k, 64m or 1g"),
    /** A fraction above 0 and at most 1, e.g. 0.75. */
    RATIO("a number above 0 and at most 1"),
    /** One of a fixed list of words, case-insensitive, normalised to upper case. */
    CHOICE("one of the listed words");

    private final String expected;

    ValueKind(final String expected) {
        this.expected = expected;
    }

    /** How a valid value looks, for error messages and documentation. */
    public String expected() {
        return expected;
    }

    /** Parses a {@link #BOOLEAN}; anything but true/false (any case) is refused rather than read as false. */
    public static boolean parseBoolean(final String text) {
        final String v = text.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true")) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw new InvalidValueException("'" + text + "' is not " + BOOLEAN.expected);
    }

    /** Parses an {@link #INT}. */
    public static int parseInt(final String text) {
        try {
            final int v = Integer.parseInt(text.trim());
            if (v >= 0) {
                return v;
            }
        } catch (final NumberFormatException e) {
            // reported below with the expected form
        }
        throw new InvalidValueException("'" + text + "' is not " + INT.expected);
    }

    /** Parses a {@link #PORT}. */
    public static int parsePort(final String text) {
        try {
            final int v = Integer.parseInt(text.trim());
            if (v >= 0 && v <= 65535) {
                return v;
            }
        } catch (final NumberFormatException e) {
            // reported below with the expected form
        }
        throw new InvalidValueException("'" + text + "' is not " + PORT.expected);
    }

    /** Parses a {@link #SIZE} into bytes. An optional trailing {@code b} is accepted ({@code 64mb}). */
    public static long parseSize(final String text) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        if (v.length() > 1 && v.endsWith("b") && !Character.isDigit(v.charAt(v.length() - 2))) {
            v = v.substring(0, v.length() - 1);
        }
        int shift = 0;
        if (!v.isEmpty()) {
            switch (v.charAt(v.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                default -> shift = 0;
            }
        }
        final String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            throw new InvalidValueException("'" + text + "' is not " + SIZE.expected);
        }
        try {
            final long n = Long.parseLong(digits);
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new InvalidValueException("'" + text + "' is too large");
            }
            return n << shift;
        } catch (final NumberFormatException e) {
            throw new InvalidValueException("'" + text + "' is too large");
        }
    }

    /** Parses a {@link #SIZE} that must fit an int (a buffer or mapped file size). */
    public static int parseIntSize(final String text) {
        final long v = parseSize(text);
        if (v > Integer.MAX_VALUE) {
            throw new InvalidValueException("'" + text + "' is too large: at most 2147483647 bytes (just under 2g)");
        }
        return (int) v;
    }

    /** Parses a {@link #RATIO}. */
    public static double parseRatio(final String text) {
        try {
            final double v = Double.parseDouble(text.trim());
            if (v > 0 && v <= 1) {
                return v;
            }
        } catch (final NumberFormatException e) {
            // reported below with the expected form
        }
        throw new InvalidValueException("'" + text + "' is not " + RATIO.expected);
    }
}
