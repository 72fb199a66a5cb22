package io.junction.core;

/**
 * What acknowledges one popped message. Only the core makes receipts (they come with {@link PoppedMessage}); a
 * front-end that keeps them in process acks them as they are ({@link Messaging#ackReceipts}), while one that hands
 * them to clients sends {@link #sealed()} and acks that text later.
 */
public interface Receipt {

    /**
     * The receipt as tamper-evident text for a client to send back: a client can neither forge nor alter it. Sealing
     * costs a keyed hash, so it is made on the first call only, and only front-ends that hand receipts out ask for it.
     */
    String sealed();
}
