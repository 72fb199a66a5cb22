package io.junction.core.txn;

/** How a producer (or the check-back timeout) resolves a half message. */
public enum TransactionResolution {
    /** Deliver the message to its real topic and queue. */
    COMMIT,
    /** Drop the message; it is never delivered. */
    ROLLBACK,
    /** Not decided yet: the half message stays pending and will be checked back. */
    UNKNOWN
}
