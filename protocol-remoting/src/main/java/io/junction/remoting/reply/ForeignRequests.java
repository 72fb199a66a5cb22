package io.junction.remoting.reply;

import io.junction.core.message.MessageProperties;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request from another protocol (an MQTT 5 publish with a response topic, a JMS message with a reply-to) as a
 * RocketMQ consumer must see it to answer with {@code MessageUtil.createReplyMessage}: with {@code CLUSTER} (this
 * cluster, so the reply goes to its reply topic) and a {@code REPLY_TO_CLIENT} that carries the request's reply-to
 * address, so the reply can be stored there. RocketMQ consumers read stored records as they are; only records with
 * a reply-to address and no requesting client get rewritten, found by a scan of their property bytes.
 */
public final class ForeignRequests {
    private static final byte[] REPLY_TO_ENTRY = (MessageProperties.REPLY_TO + '\u0001')
            .getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_TO_CLIENT_ENTRY = (ReplyProtocol.REPLY_TO_CLIENT + '\u0001')
            .getBytes(StandardCharsets.US_ASCII);
    private static final byte PROPERTY_SEPARATOR = 2;

    private final String clusterName;

    public ForeignRequests(final String clusterName) {
        this.clusterName = clusterName;
    }

    /**
     * The properties a RocketMQ consumer gets for {@code m}: null when they are the stored ones (the common case:
     * hand out the record as it is), else the stored ones plus {@code CLUSTER} and {@code REPLY_TO_CLIENT}.
     */
    public Map<String, String> rocketMqView(final StoredMessage m) {
        if (!isForeignRequest(m.record(), m.sysFlag())) {
            return null;
        }
        final Map<String, String> props = new LinkedHashMap<>(m.properties());
        props.put(ReplyProtocol.REPLY_TO_CLIENT, ReplyProtocol.ADDRESS_PREFIX + props.get(MessageProperties.REPLY_TO));
        props.putIfAbsent(ReplyProtocol.CLUSTER, clusterName);
        return props;
    }

    /** Whether a record's properties name a reply-to address but no requesting client. */
    static boolean isForeignRequest(final ByteBuffer record, final int sysFlag) {
        final int base = record.position();
        final int bodyLengthAt = base + RecordLayout.bodyLengthOffset(sysFlag);
        final int topicLengthAt = bodyLengthAt + 4 + record.getInt(bodyLengthAt);
        final boolean v2 = record.getInt(base + RecordLayout.MAGIC_OFFSET) == RecordLayout.MAGIC_V2;
        final int topicLength = v2 ? record.getShort(topicLengthAt) & 0xFFFF : record.get(topicLengthAt);
        final int propertiesLengthAt = topicLengthAt + (v2 ? 2 : 1) + topicLength;
        final int length = record.getShort(propertiesLengthAt) & 0xFFFF;
        if (length < REPLY_TO_ENTRY.length) {
            return false;
        }
        // Every pulled record passes here: one bulk copy of its property bytes and a scan of the array cost a fraction
        // of reading the read-only buffer byte by byte (3 % of the broker's drain samples).
        final byte[] bytes = new byte[length];
        record.get(propertiesLengthAt + 2, bytes);
        boolean replyTo = false;
        for (int entry = 0; entry < length; entry = next(bytes, entry)) {
            // Both names start with 'R': most entries are passed over on their first byte.
            if (bytes[entry] == REPLY_TO_ENTRY[0]) {
                if (startsWith(bytes, entry, REPLY_TO_CLIENT_ENTRY)) {
                    return false;
                }
                replyTo |= startsWith(bytes, entry, REPLY_TO_ENTRY);
            }
        }
        return replyTo;
    }

    /** Where the entry after the one at {@code entry} starts (past the end when there is none). */
    private static int next(final byte[] bytes, final int entry) {
        int i = entry;
        while (i < bytes.length && bytes[i] != PROPERTY_SEPARATOR) {
            i++;
        }
        return i + 1;
    }

    private static boolean startsWith(final byte[] bytes, final int at, final byte[] prefix) {
        return bytes.length - at >= prefix.length
                && Arrays.equals(bytes, at, at + prefix.length, prefix, 0, prefix.length);
    }
}
