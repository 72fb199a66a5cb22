package io.junction.core;

/**
 * Where a sent message was stored.
 *
 * @param uniqueId        the message's unique id (the producer's, or one assigned by the core)
 * @param offsetMessageId the server id: store host and log offset
 */
public record SendResult(
        String uniqueId,
        String offsetMessageId,
        String topic,
        int queueId,
        long queueOffset,
        long commitLogOffset) {
}
