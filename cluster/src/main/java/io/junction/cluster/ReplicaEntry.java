package io.junction.cluster;

import java.nio.ByteBuffer;

/**
 * The payload of one Raft entry of a store group.
 *
 * <pre>
 *  0               1                               9
 * +---------------+-------------------------------+-----------------------------------------+
 * | type (1 byte) | log offset (8 bytes, big end.) | the leader's log bytes [offset, offset+n) |
 * +---------------+-------------------------------+-----------------------------------------+
 * </pre>
 *
 * <p>{@link #LOG_RANGE}: a range of the leader's commit log exactly as it wrote it (whole records, blank fillers
 * included), written by every replica at the same offset. Many records go in one entry: a Raft entry costs about the
 * same whatever its size, so the appender's batch is the unit.
 */
final class ReplicaEntry {
    static final byte LOG_RANGE = 1;
    static final int TYPE_OFFSET = 0;
    static final int LOG_OFFSET_OFFSET = 1;
    static final int HEADER_LENGTH = 9;

    private ReplicaEntry() {
    }

    /** A {@link #LOG_RANGE} entry of {@code bytes} (position to limit) at {@code offset}. */
    static ByteBuffer logRange(final long offset, final ByteBuffer bytes) {
        final ByteBuffer entry = ByteBuffer.allocate(HEADER_LENGTH + bytes.remaining());
        entry.put(LOG_RANGE).putLong(offset).put(bytes.duplicate());
        return entry.flip();
    }

    static byte type(final ByteBuffer entry) {
        return entry.get(entry.position() + TYPE_OFFSET);
    }

    static long logOffset(final ByteBuffer entry) {
        return entry.getLong(entry.position() + LOG_OFFSET_OFFSET);
    }

    /** The log bytes of a {@link #LOG_RANGE} entry. */
    static ByteBuffer logBytes(final ByteBuffer entry) {
        return entry.duplicate().position(entry.position() + HEADER_LENGTH).slice();
    }
}
