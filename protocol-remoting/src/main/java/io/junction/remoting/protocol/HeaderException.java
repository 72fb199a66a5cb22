package io.junction.remoting.protocol;

/** A request header that is malformed or lacks a required field; answered with an error response. */
public final class HeaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public HeaderException(final String message) {
        super(message);
    }
}
