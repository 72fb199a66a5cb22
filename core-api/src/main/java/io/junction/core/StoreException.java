package io.junction.core;

/** A refused or failed core operation, with the reason as a {@link StoreError}. */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final StoreError error;

    public StoreException(final StoreError error, final String message) {
        super(message);
        this.error = error;
    }

    public StoreException(final StoreError error, final String message, final Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    public StoreError error() {
        return error;
    }

    /** The {@link StoreError} of a failure, unwrapping completion wrappers; null when it is not a store error. */
    public static StoreError errorOf(final Throwable failure) {
        Throwable t = failure;
        while (t != null) {
            if (t instanceof StoreException se) {
                return se.error();
            }
            t = t.getCause();
        }
        return null;
    }
}
