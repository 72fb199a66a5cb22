package io.junction.core.queue;

import java.nio.ByteBuffer;

/**
 * One consume-queue entry, 20 bytes, RocketMQ's layout. The entry for queue offset {@code q} sits at byte
 * {@code q * 20} of the queue's files, so an entry is found without a search.
 *
 * <pre>
 * +--------------------------------+----------------+--------------------------------+
 * | log offset (int64)             | size (int32)   | tag hash (int64)               |
 * +--------------------------------+----------------+--------------------------------+
 * 0                                8                12                               20
 * </pre>
 * A size of 0 marks an entry never written (a hole).
 */
public final class QueueEntryDescriptor {
    public static final int ENTRY_LENGTH = 20;
    public static final int LOG_OFFSET_OFFSET = 0;
    public static final int SIZE_OFFSET = 8;
    public static final int TAG_HASH_OFFSET = 12;

    private QueueEntryDescriptor() {
    }

    public static long logOffset(final ByteBuffer buf, final int entryPosition) {
        return buf.getLong(entryPosition + LOG_OFFSET_OFFSET);
    }

    public static int size(final ByteBuffer buf, final int entryPosition) {
        return buf.getInt(entryPosition + SIZE_OFFSET);
    }

    public static long tagHash(final ByteBuffer buf, final int entryPosition) {
        return buf.getLong(entryPosition + TAG_HASH_OFFSET);
    }


    static void write(final ByteBuffer buf, final int entryPosition, final long logOffset, final int size,
                      final long tagHash) {
        buf.putLong(entryPosition + LOG_OFFSET_OFFSET, logOffset);
        buf.putLong(entryPosition + TAG_HASH_OFFSET, tagHash);
        // Size last: a reader treats size 0 as "not written".
        buf.putInt(entryPosition + SIZE_OFFSET, size);
    }
}
