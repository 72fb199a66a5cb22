package io.junction.broker.lifecycle;

/** The broker could not start; the message is the one line printed before exiting with code 1. */
public final class BrokerStartException extends Exception {
    private static final long serialVersionUID = 1L;

    public BrokerStartException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
