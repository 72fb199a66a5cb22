package io.junction.core.message;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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

    /** The topic a half message of a transaction belongs to, or null when this is not a half record. */
    public String realTopic() {
        final String topic = properties.get(MessageProperties.REAL_TOPIC);
        return topic == null || topic.isEmpty() ? null : topic;
    }

    /** The queue a half message belongs to, or {@link Message#ANY_QUEUE} when missing or garbled. */
    public int realQueueId() {
        try {
            return Integer.parseInt(properties.get(MessageProperties.REAL_QUEUE_ID));
        } catch (NumberFormatException e) {
            return Message.ANY_QUEUE;
        }
    }

    /** A copy of the body. */
    public byte[] bodyBytes() {
        final byte[] bytes = new byte[body.remaining()];
        body.duplicate().get(bytes);
        return bytes;
    }

    /**
     * This record re-encoded under another topic, queue and properties, everything else unchanged: for front-ends that
     * hand stored records out in RocketMQ's layout (a retried message under its original topic, a transaction
     * check-back under its real topic). The copy is a heap buffer, ready to read.
     */
    public ByteBuffer recordAs(final String newTopic, final int newQueueId, final Map<String, String> newProperties) {
        final ByteBuffer src = record.duplicate();
        final int base = src.position();
        final int bodyLengthOffset = RecordLayout.bodyLengthOffset(sysFlag);
        final int bodyEnd = bodyLengthOffset + 4 + src.getInt(base + bodyLengthOffset);
        final byte[] topicBytes = newTopic.getBytes(StandardCharsets.UTF_8);
        final byte[] props = MessageProperties.encode(newProperties).getBytes(StandardCharsets.UTF_8);
        final boolean v2 = topicBytes.length > RecordLayout.MAX_V1_TOPIC_LENGTH;
        final int total = bodyEnd + (v2 ? 2 : 1) + topicBytes.length + 2 + props.length;
        final ByteBuffer out = ByteBuffer.allocate(total);
        out.put(src.position(base).limit(base + bodyEnd));
        out.putInt(RecordLayout.TOTAL_SIZE_OFFSET, total);
        out.putInt(RecordLayout.MAGIC_OFFSET, v2 ? RecordLayout.MAGIC_V2 : RecordLayout.MAGIC_V1);
        out.putInt(RecordLayout.QUEUE_ID_OFFSET, newQueueId);
        if (v2) {
            out.putShort((short) topicBytes.length);
        } else {
            out.put((byte) topicBytes.length);
        }
        out.put(topicBytes);
        out.putShort((short) props.length);
        out.put(props);
        return out.flip();
    }
}
