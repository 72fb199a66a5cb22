package io.junction.spi.config;

/** A configuration value that does not parse as its key's kind; the message says what was expected. */
public final class InvalidValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidValueException(final String message) {
        super(message);
    }
}
