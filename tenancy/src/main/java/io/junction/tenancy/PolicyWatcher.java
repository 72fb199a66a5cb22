package io.junction.tenancy;

/**
 * A connection (or stream, or subscription) that acts for one principal for a long time and must follow changes of
 * the rules at once: registered with {@link AccessControl#watch}.
 *
 * <p>Both methods are called on the thread of the administrator's change, while further changes wait: an
 * implementation hands the work to its own thread (its event loop) and returns, never blocking.
 */
public interface PolicyWatcher {

    /**
     * The principal's rules (or the set of tenants) changed and the principal may still act: re-decide whatever was
     * allowed before and is held open (a consumer link, a subscription). Decisions asked afresh for each operation
     * need nothing here.
     */
    default void rulesChanged() {
    }

    /**
     * The principal may no longer act at all: its user was deleted, disabled or moved to another namespace. End the
     * connection the protocol's way. Called at most once; the registration is dropped with it.
     */
    void revoked();
}
