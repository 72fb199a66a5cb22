package io.junction.core.message;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * A message as read back from the log: the canonical fields plus where and when it was stored.
 *
 * @param record            the whole stored record (read-only view; RocketMQ stored-message layout) for front-ends
 *                          that can hand it out unchanged
 * @param body              the body (read-only view into {@code record}); copy it before keeping it past the call
 */
public record StoredMessage(
        String topic,
        int queueId,
        long queueOffset,
        long commitLogOffset,
        int size,
        int flag,
        int sysFlag,
        long bornTimestamp,
        InetSocketAddress bornHost,
        long storeTimestamp,
        InetSocketAddress storeHost,
        int reconsumeTimes,
        long preparedTransactionOffset,
        Map<String, String> properties,
        ByteBuffer body,
        ByteBuffer record) {

    public String tag() {
        return properties.get(MessageProperties.TAGS);
    }

    public String keys() {
        return properties.get(MessageProperties.KEYS);
    }

    public String uniqueId() {
        return properties.get(MessageProperties.UNIQUE_ID);
    }

    public String property(final String name) {
        return properties.get(name);
    }

    /** The server-side id: store host and log offset (RocketMQ's "offset message id"). */
    public String offsetMessageId() {
        return MessageIds.offsetMessageId(storeHost, commitLogOffset);
    }

    /** A copy of the body. */
    public byte[] bodyBytes() {
        final byte[] bytes = new byte[body.remaining()];
        body.duplicate().get(bytes);
        return bytes;
    }
}
