package io.junction.core;

import io.junction.core.message.StoredMessage;

/**
 * A message handed out by a pop.
 *
 * @param message        the stored message (from the retry topic when redelivered)
 * @param topic          the topic the consumer asked for (the original topic of a redelivered message)
 * @param receiptHandle  what ack and visibility changes take; opaque and tamper-evident
 * @param reconsumeTimes how many times it was delivered before
 */
public record PoppedMessage(StoredMessage message, String topic, String receiptHandle, int reconsumeTimes) {
}
