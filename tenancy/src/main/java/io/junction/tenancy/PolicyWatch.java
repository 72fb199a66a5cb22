package io.junction.tenancy;

/** A {@link PolicyWatcher}'s registration: cancel it when the connection ends. */
@FunctionalInterface
public interface PolicyWatch {

    /** The registration of a broker without users (security off): nothing ever changes. */
    PolicyWatch NONE = () -> { };

    /** Stops telling the watcher; idempotent. */
    void cancel();
}
