package io.junction.cluster.proxy.groups;

/**
 * A scaling that kept losing the race for the topic's placement: another proxy changed it every time this one was
 * about to write (the admin API answers 409). Nothing was lost; scaling again reads the placement that won.
 */
public final class ScalingConflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ScalingConflict(final String message) {
        super(message);
    }
}
