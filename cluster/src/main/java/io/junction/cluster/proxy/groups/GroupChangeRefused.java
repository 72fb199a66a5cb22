package io.junction.cluster.proxy.groups;

/** A store group cannot be added or removed as asked; {@link #reason()} says why (the admin API's status). */
public final class GroupChangeRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a change was refused. */
    public enum Reason {
        /** A group of that name is configured or recorded already. */
        DUPLICATE,
        /** No leader of the group answered in time. */
        UNREACHABLE,
        /** Segments still take writes there (the message names the topics). */
        IN_USE,
        /** No such group. */
        UNKNOWN,
        /** The group is in {@code cluster.store-groups}: change the configuration instead. */
        CONFIGURED,
        /** Every number a group added at run time can have is taken ({@link RuntimeGroupBook}). */
        NUMBERS_TAKEN
    }

    private final Reason reason;

    public GroupChangeRefused(final Reason reason, final String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
