package io.junction.cluster;

/** The node cannot take part in its cluster; the message is one line fit for the operator. */
public final class ClusterStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ClusterStartException(final String message) {
        super(message);
    }

    public ClusterStartException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
