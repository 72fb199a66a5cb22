package io.junction.core;

import io.junction.core.message.StoredMessage;

/**
 * A message handed out by a pop.
 *
 * @param message        the stored message (from the retry topic when redelivered)
 * @param topic          the topic the consumer asked for (the original topic of a redelivered message)
 * @param receipt        what acks it and changes its visibility
 * @param reconsumeTimes how many times it was delivered before
 */
public record PoppedMessage(StoredMessage message, String topic, Receipt receipt, int reconsumeTimes) {

    /** The receipt as the opaque, tamper-evident text clients get (see {@link Receipt#sealed()}). */
    public String receiptHandle() {
        return receipt.sealed();
    }
}
