package io.junction.remoting.processor;

import io.junction.core.log.RecordDescriptor;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Re-encodes a stored record with another topic, queue and properties (everything else unchanged). */
public final class Records {
    private Records() {
    }

    public static ByteBuffer rewrite(final StoredMessage m, final String topic, final int queueId,
                                     final Map<String, String> properties) {
        final ByteBuffer src = m.record().duplicate();
        final int base = src.position();
        final int sysFlag = m.sysFlag();
        final int bodyLengthOffset = RecordDescriptor.bodyLengthOffset(sysFlag);
        final int bodyLength = src.getInt(base + bodyLengthOffset);
        final int bodyEnd = bodyLengthOffset + 4 + bodyLength;
        final byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        final byte[] props = MessageProperties.encode(properties).getBytes(StandardCharsets.UTF_8);
        final boolean v2 = topicBytes.length > RecordDescriptor.MAX_V1_TOPIC_LENGTH;
        final int total = bodyEnd + (v2 ? 2 : 1) + topicBytes.length + 2 + props.length;
        final ByteBuffer out = ByteBuffer.allocate(total);
        final ByteBuffer head = src.duplicate();
        head.position(base).limit(base + bodyEnd);
        out.put(head);
        out.putInt(RecordDescriptor.TOTAL_SIZE_OFFSET, total);
        out.putInt(RecordDescriptor.MAGIC_OFFSET, v2 ? RecordDescriptor.MAGIC_V2 : RecordDescriptor.MAGIC_V1);
        out.putInt(RecordDescriptor.QUEUE_ID_OFFSET, queueId);
        if (v2) {
            out.putShort((short) topicBytes.length);
        } else {
            out.put((byte) topicBytes.length);
        }
        out.put(topicBytes);
        out.putShort((short) props.length);
        out.put(props);
        out.flip();
        return out;
    }
}
