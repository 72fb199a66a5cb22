package io.junction.broker.config;

/** The configuration cannot be used; the message is the one line printed before exiting with code 2. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfigException(final String message) {
        super(message);
    }

    public ConfigException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
