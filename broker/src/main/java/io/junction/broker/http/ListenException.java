package io.junction.broker.http;

import java.nio.channels.UnresolvedAddressException;

/** A listener could not be bound; the message names the listener, the address and the reason in one line. */
public final class ListenException extends Exception {
    private static final long serialVersionUID = 1L;

    public ListenException(final String listener, final String address, final int port, final Throwable cause) {
        super("cannot listen for " + listener + " on " + address + ":" + port + ": " + reason(cause), cause);
    }

    /** The OS reason without the transport's decoration ("bind(..) failed with error(-98): Address already in use"). */
    static String reason(final Throwable cause) {
        Throwable t = cause;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        if (t instanceof UnresolvedAddressException) {
            return "unknown address";
        }
        final String message = t.getMessage();
        if (message == null) {
            return t.getClass().getSimpleName();
        }
        final int colon = message.lastIndexOf(": ");
        return colon >= 0 ? message.substring(colon + 2) : message;
    }
}
