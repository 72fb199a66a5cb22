package io.junction.spi.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One configuration key: its name, kind, default and meaning. The declaration is both the validation and the
 * documentation.
 *
 * @param name         dotted name, {@code <owner>.<what>}, e.g. {@code store.segment-size}, {@code mqtt.port}
 * @param kind         how the value is written and parsed
 * @param defaultValue the value used when nothing sets the key; valid for {@code kind}; empty means "unset"
 * @param description  one sentence for the README and {@code --help}
 * @param choices      for {@link ValueKind#CHOICE}, the accepted words in upper case; empty otherwise
 * @param check        further check of a {@link ValueKind#STRING} value; accepts anything unless given
 */
public record ConfigKey(String name, ValueKind kind, String defaultValue, String description, List<String> choices,
                        ValueCheck check) {

    /** A front-end's own check of a {@link ValueKind#STRING} value (a list of topic filters, say). */
    @FunctionalInterface
    public interface ValueCheck {
        /**
         * Accepts the trimmed value or throws.
         *
         * @throws InvalidValueException saying what is wrong with it
         */
        void check(String value);
    }

    private static final ValueCheck ANY = v -> { };

    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(description, "description");
        choices = List.copyOf(choices);
        check = check == null ? ANY : check;
        if (kind == ValueKind.CHOICE && choices.isEmpty()) {
            throw new IllegalArgumentException(name + ": a CHOICE key needs choices");
        }
        if (!defaultValue.isEmpty()) {
            validate(name, kind, choices, check, defaultValue); // a bad default is a programming error: fail at class load
        }
    }

    /** A key of any kind but {@link ValueKind#CHOICE}. */
    public static ConfigKey of(final String name, final ValueKind kind, final String defaultValue,
                               final String description) {
        return new ConfigKey(name, kind, defaultValue, description, List.of(), ANY);
    }

    /** A {@link ValueKind#STRING} key whose non-empty values must pass {@code check}. */
    public static ConfigKey checked(final String name, final String defaultValue, final String description,
                                    final ValueCheck check) {
        return new ConfigKey(name, ValueKind.STRING, defaultValue, description, List.of(), check);
    }

    /** A key whose value is one of {@code choices} (case-insensitive). */
    public static ConfigKey choice(final String name, final String defaultValue, final String description,
                                   final String... choices) {
        return new ConfigKey(name, ValueKind.CHOICE, defaultValue, description, List.of(choices), ANY);
    }

    /**
     * Checks a value for this key and returns it normalised (trimmed; choices in upper case).
     *
     * @throws InvalidValueException naming the key and what was expected
     */
    public String normalize(final String value) {
        return validate(name, kind, choices, check, value);
    }

    /** What a valid value looks like, e.g. "one of ASYNC, SYNC". */
    public String expected() {
        return kind == ValueKind.CHOICE ? "one of " + String.join(", ", choices) : kind.expected();
    }

    private static String validate(final String name, final ValueKind kind, final List<String> choices,
                                   final ValueCheck check, final String value) {
        final String v = value.trim();
        try {
            switch (kind) {
                case BOOLEAN -> {
                    return Boolean.toString(ValueKind.parseBoolean(v));
                }
                case INT -> ValueKind.parseInt(v);
                case PORT -> ValueKind.parsePort(v);
                case SIZE -> ValueKind.parseSize(v);
                case INT_SIZE -> ValueKind.parseIntSize(v);
                case RATIO -> ValueKind.parseRatio(v);
                case CHOICE -> {
                    final String upper = v.toUpperCase(Locale.ROOT);
                    if (!choices.contains(upper)) {
                        throw new InvalidValueException("'" + value + "' is not one of " + String.join(", ", choices));
                    }
                    return upper;
                }
                case STRING -> {
                    if (!v.isEmpty()) {
                        check.check(v);
                    }
                }
            }
        } catch (final InvalidValueException e) {
            throw new InvalidValueException("invalid value for " + name + ": " + e.getMessage());
        }
        return v;
    }
}
