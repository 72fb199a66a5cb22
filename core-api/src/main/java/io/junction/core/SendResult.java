package io.junction.core;

import io.junction.core.message.MessageIds;
import java.net.InetSocketAddress;

/**
 * Where a sent message was stored.
 *
 * @param uniqueId        the message's unique id (the producer's, or one assigned by the core)
 * @param commitLogOffset the stored record's log offset
 * @param storeHost       the store's address, part of the offset message id
 */
public record SendResult(
        String uniqueId,
        String topic,
        int queueId,
        long queueOffset,
        long commitLogOffset,
        InetSocketAddress storeHost) {

    /** The server id: store host and log offset (computed on demand: most senders never ask). */
    public String offsetMessageId() {
        return MessageIds.offsetMessageId(storeHost, commitLogOffset);
    }
}
