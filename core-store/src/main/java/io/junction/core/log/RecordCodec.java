package io.junction.core.log;

import static io.junction.core.message.RecordLayout.*;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Encodes messages into records and checks and decodes records (layout in {@link RecordLayout}).
 *
 * <p>Encoding happens in two steps so the expensive part runs on the sender's thread: {@link #encode} renders the
 * record with the position-dependent fields left zero; {@link #seal} (on the appender thread, once the position is
 * known) fills in queue offset, log offset and store time and computes the CRC over all of it.
 */
public final class RecordCodec {
    /** {@link #check} result: the bytes at the position are not a valid record (torn, garbled, or never written). */
    public static final int INVALID = -1;
    /** {@link #check} result: a blank record closes the segment here. */
    public static final int BLANK = -2;

    private RecordCodec() {
    }

    /**
     * Renders a record for {@code message} into a new heap buffer (position 0, limit = record length), with the
     * store-time fields still zero.
     *
     * @throws IllegalArgumentException when the topic or the property string is too long for the layout
     */
    public static ByteBuffer encode(final Message message, final InetSocketAddress storeHost) {
        return encode(message, storeHost, null);
    }

    /**
     * As {@link #encode(Message, InetSocketAddress)}, adding the unique id property {@code assignedUniqueId} when it
     * is not null (the message had none).
     */
    public static ByteBuffer encode(final Message message, final InetSocketAddress storeHost,
                                    final String assignedUniqueId) {
        final Prepared prepared = prepare(message, storeHost, assignedUniqueId);
        final ByteBuffer buf = ByteBuffer.allocate(prepared.length());
        prepared.writeTo(buf);
        return buf.flip();
    }

    /**
     * Measures the record for {@code message} (adding {@code assignedUniqueId} as {@link #encode} does) without
     * rendering it, so a batch can render all its records straight into one buffer.
     *
     * @throws IllegalArgumentException when the topic or the property string is too long for the layout
     */
    public static Prepared prepare(final Message message, final InetSocketAddress storeHost,
                                   final String assignedUniqueId) {
        final byte[] topic = message.topic().getBytes(StandardCharsets.UTF_8);
        final int propertiesLength = PropertyBytes.length(message.properties(), assignedUniqueId);
        if (topic.length == 0 || topic.length > MAX_TOPIC_LENGTH) {
            throw new IllegalArgumentException("topic length " + topic.length + " out of range");
        }
        if (propertiesLength > MAX_PROPERTIES_LENGTH) {
            throw new IllegalArgumentException("properties too long: " + propertiesLength + " bytes (max "
                    + MAX_PROPERTIES_LENGTH + ")");
        }
        final byte[] bornIp = addressBytes(message.bornHost());
        final byte[] storeIp = addressBytes(storeHost);
        int sysFlag = message.sysFlag() & ~(SYS_FLAG_BORN_HOST_V6 | SYS_FLAG_STORE_HOST_V6);
        if (bornIp.length == 16) {
            sysFlag |= SYS_FLAG_BORN_HOST_V6;
        }
        if (storeIp.length == 16) {
            sysFlag |= SYS_FLAG_STORE_HOST_V6;
        }
        return new Prepared(message, storeHost.getPort(), topic, assignedUniqueId, propertiesLength, bornIp, storeIp,
                sysFlag, recordLength(sysFlag, message.body().length, topic.length, propertiesLength));
    }

    /** A message's record measured by {@link #prepare}: {@link #length()} bytes, rendered by {@link #writeTo}. */
    public static final class Prepared {
        private final Message message;
        private final int storePort;
        private final byte[] topic;
        private final String assignedUniqueId;
        private final int propertiesLength;
        private final byte[] bornIp;
        private final byte[] storeIp;
        private final int sysFlag;
        private final int length;

        private Prepared(final Message message, final int storePort, final byte[] topic, final String assignedUniqueId,
                         final int propertiesLength, final byte[] bornIp, final byte[] storeIp, final int sysFlag,
                         final int length) {
            this.message = message;
            this.storePort = storePort;
            this.topic = topic;
            this.assignedUniqueId = assignedUniqueId;
            this.propertiesLength = propertiesLength;
            this.bornIp = bornIp;
            this.storeIp = storeIp;
            this.sysFlag = sysFlag;
            this.length = length;
        }

        /** The record's length in bytes. */
        public int length() {
            return length;
        }

        /** Renders the record at the buffer's position (advancing it), the store-time fields still zero. */
        public void writeTo(final ByteBuffer buf) {
            buf.putInt(length);
            buf.putInt(topic.length > MAX_V1_TOPIC_LENGTH ? MAGIC_V2 : MAGIC_V1);
            buf.putInt(0); // CRC, sealed later
            buf.putInt(message.queueId());
            buf.putInt(message.flag());
            buf.putLong(0); // queue offset
            buf.putLong(0); // physical offset
            buf.putInt(sysFlag);
            buf.putLong(message.bornTimestamp());
            buf.put(bornIp).putInt(message.bornHost().getPort());
            buf.putLong(0); // store timestamp
            buf.put(storeIp).putInt(storePort);
            buf.putInt(message.reconsumeTimes());
            buf.putLong(0); // prepared transaction offset
            buf.putInt(message.body().length).put(message.body());
            if (topic.length > MAX_V1_TOPIC_LENGTH) {
                buf.putShort((short) topic.length);
            } else {
                buf.put((byte) topic.length);
            }
            buf.put(topic);
            buf.putShort((short) propertiesLength);
            final int propertiesEnd = buf.position() + propertiesLength;
            PropertyBytes.write(buf, message.properties(), assignedUniqueId);
            if (buf.position() != propertiesEnd) {
                // The properties are read twice (measured, then written): a map changed in between must not make a
                // record whose parts do not add up to its length.
                throw new IllegalStateException("the message's properties changed while its record was rendered");
            }
        }
    }

    /**
     * Fills in the store-time fields of a record rendered by {@link #encode} and computes its CRC.
     *
     * @param record the record, from its position to its limit
     */
    public static void seal(final ByteBuffer record, final int queueId, final long queueOffset,
                            final long physicalOffset, final long storeTimestamp,
                            final long preparedTransactionOffset) {
        final int base = record.position();
        final int sysFlag = record.getInt(base + SYS_FLAG_OFFSET);
        record.putInt(base + QUEUE_ID_OFFSET, queueId);
        record.putLong(base + QUEUE_OFFSET_OFFSET, queueOffset);
        record.putLong(base + PHYSICAL_OFFSET_OFFSET, physicalOffset);
        record.putLong(base + storeTimestampOffset(sysFlag), storeTimestamp);
        record.putLong(base + preparedTransactionOffsetOffset(sysFlag), preparedTransactionOffset);
        record.putInt(base + CRC_OFFSET, crc(record, base, record.getInt(base + TOTAL_SIZE_OFFSET)));
    }

    /**
     * Checks the record at {@code position} of {@code buf}: plausible size, known magic, its own log offset equal to
     * {@code expectedPhysicalOffset}, and a matching CRC.
     *
     * @return the record's size, {@link #BLANK} for a blank record, or {@link #INVALID}
     */
    public static int check(final ByteBuffer buf, final int position, final long expectedPhysicalOffset) {
        return check(buf, position, expectedPhysicalOffset, true);
    }

    /**
     * As {@link #check(ByteBuffer, int, long)}, with the CRC computed only when {@code verifyCrc}: the structure (size,
     * magic, own offset, parts adding up to the size) is always checked, so a record that passes always decodes.
     */
    public static int check(final ByteBuffer buf, final int position, final long expectedPhysicalOffset,
                            final boolean verifyCrc) {
        final int available = buf.limit() - position;
        if (available < BLANK_LENGTH) {
            return INVALID;
        }
        final int size = buf.getInt(position + TOTAL_SIZE_OFFSET);
        final int magic = buf.getInt(position + MAGIC_OFFSET);
        if (magic == BLANK_MAGIC) {
            return size == available ? BLANK : INVALID;
        }
        if (magic != MAGIC_V1 && magic != MAGIC_V2) {
            return INVALID;
        }
        if (size < recordLength(0, 0, 1, 0) || size > available) {
            return INVALID;
        }
        if (buf.getLong(position + PHYSICAL_OFFSET_OFFSET) != expectedPhysicalOffset) {
            return INVALID;
        }
        if (verifyCrc && buf.getInt(position + CRC_OFFSET) != crc(buf, position, size)) {
            return INVALID;
        }
        // A record that passes the check must decode: its parts must add up to its size.
        return wellFormed(buf, position, size, magic == MAGIC_V2) ? size : INVALID;
    }

    private static boolean wellFormed(final ByteBuffer buf, final int position, final int size, final boolean v2) {
        final int sysFlag = buf.getInt(position + SYS_FLAG_OFFSET);
        final int bodyLengthAt = bodyLengthOffset(sysFlag);
        if (bodyLengthAt + 4 > size
                || !validPort(buf.getInt(position + BORN_HOST_OFFSET
                        + hostLength((sysFlag & SYS_FLAG_BORN_HOST_V6) != 0) - 4))
                || !validPort(buf.getInt(position + storeHostOffset(sysFlag)
                        + hostLength((sysFlag & SYS_FLAG_STORE_HOST_V6) != 0) - 4))) {
            return false;
        }
        final long bodyLength = buf.getInt(position + bodyLengthAt);
        long p = bodyLengthAt + 4 + bodyLength;
        if (bodyLength < 0 || p + (v2 ? 2 : 1) > size) {
            return false;
        }
        final int topicLength = v2 ? buf.getShort(position + (int) p) & 0xFFFF : buf.get(position + (int) p);
        p += (v2 ? 2 : 1) + (long) topicLength;
        if (topicLength <= 0 || p + 2 > size) {
            return false;
        }
        final int propertiesLength = buf.getShort(position + (int) p) & 0xFFFF;
        return p + 2 + propertiesLength == size;
    }

    private static boolean validPort(final int port) {
        return port >= 0 && port <= 0xFFFF;
    }

    /**
     * Decodes a checked record. The body and record views share {@code record}'s memory.
     *
     * @param record a buffer holding exactly one record from its position to its limit
     */
    public static StoredMessage decode(final ByteBuffer record) {
        return decode(record, null);
    }

    /**
     * As {@link #decode(ByteBuffer)} for a record the caller expects to be of {@code expectedTopic} (read through that
     * topic's queue): when its topic is that one, the caller's string is reused instead of decoding another.
     */
    public static StoredMessage decode(final ByteBuffer record, final String expectedTopic) {
        final ByteBuffer slice = record.slice();
        final ByteBuffer r = slice.isReadOnly() ? slice : slice.asReadOnlyBuffer();
        final int size = r.getInt(TOTAL_SIZE_OFFSET);
        final boolean v2 = r.getInt(MAGIC_OFFSET) == MAGIC_V2;
        final int sysFlag = r.getInt(SYS_FLAG_OFFSET);
        final InetSocketAddress bornHost = HostAddresses.decode(r, BORN_HOST_OFFSET,
                (sysFlag & SYS_FLAG_BORN_HOST_V6) != 0);
        final InetSocketAddress storeHost = HostAddresses.decode(r, storeHostOffset(sysFlag),
                (sysFlag & SYS_FLAG_STORE_HOST_V6) != 0);
        int p = bodyLengthOffset(sysFlag);
        final int bodyLength = r.getInt(p);
        p += 4;
        final ByteBuffer body = r.slice(p, bodyLength); // one view, not a duplicate and a slice of it
        p += bodyLength;
        final int topicLength;
        if (v2) {
            topicLength = r.getShort(p) & 0xFFFF;
            p += 2;
        } else {
            topicLength = r.get(p);
            p += 1;
        }
        final String topic = asciiEquals(r, p, topicLength, expectedTopic) ? expectedTopic : string(r, p, topicLength);
        p += topicLength;
        final int propertiesLength = r.getShort(p) & 0xFFFF;
        p += 2;
        final Map<String, String> properties = MessageProperties.decodeLazily(r, p, propertiesLength);
        return new StoredMessage(
                topic,
                r.getInt(QUEUE_ID_OFFSET),
                r.getLong(QUEUE_OFFSET_OFFSET),
                r.getLong(PHYSICAL_OFFSET_OFFSET),
                size,
                r.getInt(FLAG_OFFSET),
                sysFlag,
                r.getLong(BORN_TIMESTAMP_OFFSET),
                bornHost,
                r.getLong(storeTimestampOffset(sysFlag)),
                storeHost,
                r.getInt(reconsumeTimesOffset(sysFlag)),
                r.getLong(preparedTransactionOffsetOffset(sysFlag)),
                properties,
                body,
                r.limit(size));
    }

    /** Reads only what the dispatcher needs for queue entries and indexes, without decoding the body. */
    public static DispatchInfo dispatchInfo(final ByteBuffer buf, final int position) {
        final int sysFlag = buf.getInt(position + SYS_FLAG_OFFSET);
        final boolean v2 = buf.getInt(position + MAGIC_OFFSET) == MAGIC_V2;
        int p = position + bodyLengthOffset(sysFlag);
        p += 4 + buf.getInt(p);
        final int topicLength;
        if (v2) {
            topicLength = buf.getShort(p) & 0xFFFF;
            p += 2;
        } else {
            topicLength = buf.get(p);
            p += 1;
        }
        final String topic = string(buf, p, topicLength);
        p += topicLength;
        final int propertiesLength = buf.getShort(p) & 0xFFFF;
        // One pass over the property bytes, decoding only the three values the indexes need.
        String tag = null;
        String keys = null;
        String uniqueId = null;
        int start = p + 2;
        final int end = start + propertiesLength;
        while (start < end) {
            int sep = start;
            while (sep < end && buf.get(sep) != PROPERTY_SEPARATOR) {
                sep++;
            }
            if (tag == null && startsWith(buf, start, sep, TAGS_NAME)) {
                tag = string(buf, start + TAGS_NAME.length, sep - start - TAGS_NAME.length);
            } else if (keys == null && startsWith(buf, start, sep, KEYS_NAME)) {
                keys = string(buf, start + KEYS_NAME.length, sep - start - KEYS_NAME.length);
            } else if (uniqueId == null && startsWith(buf, start, sep, UNIQUE_ID_NAME)) {
                uniqueId = string(buf, start + UNIQUE_ID_NAME.length, sep - start - UNIQUE_ID_NAME.length);
            }
            start = sep + 1;
        }
        return new DispatchInfo(
                topic,
                buf.getInt(position + QUEUE_ID_OFFSET),
                buf.getLong(position + QUEUE_OFFSET_OFFSET),
                buf.getLong(position + PHYSICAL_OFFSET_OFFSET),
                buf.getInt(position + TOTAL_SIZE_OFFSET),
                buf.getLong(position + storeTimestampOffset(sysFlag)),
                sysFlag,
                tag,
                keys,
                uniqueId);
    }

    private static final byte PROPERTY_SEPARATOR = 2;
    private static final byte[] TAGS_NAME = (MessageProperties.TAGS + '\u0001').getBytes(StandardCharsets.UTF_8);
    private static final byte[] KEYS_NAME = (MessageProperties.KEYS + '\u0001').getBytes(StandardCharsets.UTF_8);
    private static final byte[] UNIQUE_ID_NAME =
            (MessageProperties.UNIQUE_ID + '\u0001').getBytes(StandardCharsets.UTF_8);

    /** Whether the entry [from, to) begins with {@code name} (a property name and its separator). */
    private static boolean startsWith(final ByteBuffer buf, final int from, final int to, final byte[] name) {
        if (to - from < name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (buf.get(from + i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    /** The store time of the record at {@code position}. */
    public static long storeTimestamp(final ByteBuffer buf, final int position) {
        return buf.getLong(position + storeTimestampOffset(buf.getInt(position + SYS_FLAG_OFFSET)));
    }

    /** Writes a blank record filling {@code length} bytes at the buffer's position. */
    public static ByteBuffer blank(final int length) {
        final ByteBuffer buf = ByteBuffer.allocate(BLANK_LENGTH);
        buf.putInt(length).putInt(BLANK_MAGIC).flip();
        return buf;
    }

    static int crc(final ByteBuffer buf, final int position, final int size) {
        final CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().limit(position + size).position(position + CRC_START));
        return (int) crc.getValue();
    }

    /** Whether the {@code length} bytes at {@code position} spell {@code text}, an ASCII string (one byte a char). */
    private static boolean asciiEquals(final ByteBuffer buf, final int position, final int length, final String text) {
        if (text == null || text.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            final char c = text.charAt(i);
            if (c >= 0x80 || buf.get(position + i) != (byte) c) {
                return false;
            }
        }
        return true;
    }

    private static String string(final ByteBuffer buf, final int position, final int length) {
        if (length == 0) {
            return "";
        }
        if (buf.hasArray()) {
            return new String(buf.array(), buf.arrayOffset() + position, length, StandardCharsets.UTF_8);
        }
        final byte[] bytes = new byte[length];
        buf.get(position, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] addressBytes(final InetSocketAddress address) {
        if (address.isUnresolved()) {
            return new byte[4];
        }
        return address.getAddress().getAddress();
    }
}
