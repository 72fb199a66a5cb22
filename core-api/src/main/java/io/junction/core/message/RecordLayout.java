package io.junction.core.message;

/**
 * Layout of one commit-log record: RocketMQ's stored-message layout, so that a pull answer can hand out stored bytes
 * unchanged, with one difference that RocketMQ clients do not check: the CRC field covers the whole record after
 * itself (header, body, topic and properties, including the record's own log offset), not the body alone.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                        total size (int32)                     |  0
 * |                 magic V1 0xDAA320A7 / V2 0xDAA320AB           |  4
 * |            CRC32 of bytes [12, total size)                    |  8
 * |                          queue id                             | 12
 * |                          user flag                            | 16
 * |                   queue offset (int64)                        | 20
 * |              physical (log) offset (int64)                    | 28
 * |                          sys flag                             | 36
 * |                  born timestamp (int64)                       | 40
 * |  born host: IPv4 4 bytes (IPv6 16 if sysFlag 0x10) + port     | 48
 * |                  store timestamp (int64)                      |
 * |  store host: IPv4 4 bytes (IPv6 16 if sysFlag 0x20) + port    |
 * |                       reconsume times                         |
 * |           prepared transaction offset (int64)                 |
 * |            body length (int32), body bytes                    |
 * |  topic length (int8 for V1, int16 for V2), topic UTF-8        |
 * |      properties length (int16), property string UTF-8         |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>A segment ends with a blank record: total size = the bytes left in the segment, magic {@link #BLANK_MAGIC}.
 */
public final class RecordLayout {
    public static final int MAGIC_V1 = 0xDAA320A7;
    public static final int MAGIC_V2 = 0xDAA320AB;
    public static final int BLANK_MAGIC = 0xCBD43194;

    public static final int TOTAL_SIZE_OFFSET = 0;
    public static final int MAGIC_OFFSET = 4;
    public static final int CRC_OFFSET = 8;
    /** First byte covered by the CRC. */
    public static final int CRC_START = 12;
    public static final int QUEUE_ID_OFFSET = 12;
    public static final int FLAG_OFFSET = 16;
    public static final int QUEUE_OFFSET_OFFSET = 20;
    public static final int PHYSICAL_OFFSET_OFFSET = 28;
    public static final int SYS_FLAG_OFFSET = 36;
    public static final int BORN_TIMESTAMP_OFFSET = 40;
    public static final int BORN_HOST_OFFSET = 48;

    /** Smallest possible blank record: size and magic. */
    public static final int BLANK_LENGTH = 8;

    public static final int SYS_FLAG_BORN_HOST_V6 = 0x10;
    public static final int SYS_FLAG_STORE_HOST_V6 = 0x20;
    /** Bits of the sys flag that say which kind of transaction record this is. */
    public static final int SYS_FLAG_TRANSACTION_MASK = 0xC;
    public static final int SYS_FLAG_TRANSACTION_PREPARED = 0x4;

    /** Longest topic a V1 record can carry (its length byte is read signed). */
    public static final int MAX_V1_TOPIC_LENGTH = 127;
    public static final int MAX_TOPIC_LENGTH = Short.MAX_VALUE;
    public static final int MAX_PROPERTIES_LENGTH = Short.MAX_VALUE;

    private RecordLayout() {
    }

    public static int hostLength(final boolean v6) {
        return (v6 ? 16 : 4) + 4;
    }

    public static int storeTimestampOffset(final int sysFlag) {
        return BORN_HOST_OFFSET + hostLength((sysFlag & SYS_FLAG_BORN_HOST_V6) != 0);
    }

    public static int storeHostOffset(final int sysFlag) {
        return storeTimestampOffset(sysFlag) + 8;
    }

    public static int reconsumeTimesOffset(final int sysFlag) {
        return storeHostOffset(sysFlag) + hostLength((sysFlag & SYS_FLAG_STORE_HOST_V6) != 0);
    }

    public static int preparedTransactionOffsetOffset(final int sysFlag) {
        return reconsumeTimesOffset(sysFlag) + 4;
    }

    public static int bodyLengthOffset(final int sysFlag) {
        return preparedTransactionOffsetOffset(sysFlag) + 8;
    }

    /** Size of a record with the given variable parts. */
    public static int recordLength(final int sysFlag, final int bodyLength, final int topicLength,
                                   final int propertiesLength) {
        final int topicLengthField = topicLength > MAX_V1_TOPIC_LENGTH ? 2 : 1;
        return bodyLengthOffset(sysFlag) + 4 + bodyLength + topicLengthField + topicLength + 2 + propertiesLength;
    }
}
