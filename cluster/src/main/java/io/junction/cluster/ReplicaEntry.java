package io.junction.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The payload of one Raft entry of a store group.
 *
 * <p>{@link #LOG_RANGE}: a range of the leader's commit log exactly as it wrote it (whole records, blank fillers
 * included), written by every replica at the same offset. Many records go in one entry: a Raft entry costs about the
 * same whatever its size, so the appender's batch is the unit. The leader proposes it whole ({@link #logRange}):
 *
 * <pre>
 *  0               1                               9
 * +---------------+-------------------------------+-----------------------------------------+
 * | type (1 byte) | log offset (8 bytes, big end.) | the leader's log bytes [offset, offset+n) |
 * +---------------+-------------------------------+-----------------------------------------+
 * </pre>
 *
 * <p>but the Raft log keeps only its header ({@link #rangeHeader}); the bytes travel beside it as Ratis'
 * state-machine data, which each replica writes straight into its commit log, never into the Raft log:
 *
 * <pre>
 *  0               1                                9                    13                     17
 * +---------------+--------------------------------+--------------------+----------------------+
 * | type (1 byte) | log offset (8 bytes, big end.) | length n (4 bytes) | CRC32C of the n bytes |
 * +---------------+--------------------------------+--------------------+----------------------+
 * </pre>
 *
 * <p>{@link #METADATA}: a change of one metadata table (topics, groups, key-value configs), applied to every
 * replica's table in commit order:
 *
 * <pre>
 * | type (1) | table name length (2) | table name (UTF-8) | change kind (1) | the change (the table's codec) |
 * </pre>
 *
 * <p>{@link #OFFSETS}: the leader's whole consumer-offset table (type byte, then the table as its file holds it),
 * shipped about once a second when it changed; a follower replaces its table with it.
 */
final class ReplicaEntry {
    static final byte LOG_RANGE = 1;
    static final byte METADATA = 2;
    static final byte OFFSETS = 3;
    static final int TYPE_OFFSET = 0;
    static final int LOG_OFFSET_OFFSET = 1;
    static final int HEADER_LENGTH = 9;
    static final int RANGE_LENGTH_OFFSET = 9;
    static final int RANGE_CRC_OFFSET = 13;
    static final int RANGE_HEADER_LENGTH = 17;

    private ReplicaEntry() {
    }

    /** A {@link #LOG_RANGE} entry of {@code bytes} (position to limit) at {@code offset}. */
    static ByteBuffer logRange(final long offset, final ByteBuffer bytes) {
        final ByteBuffer entry = ByteBuffer.allocate(HEADER_LENGTH + bytes.remaining());
        entry.put(LOG_RANGE).putLong(offset).put(bytes.duplicate());
        return entry.flip();
    }

    /** The Raft log's part of a proposed {@link #LOG_RANGE} entry: where its bytes go, how many, their CRC. */
    static ByteBuffer rangeHeader(final ByteBuffer proposed) {
        final ByteBuffer bytes = logBytes(proposed);
        return ByteBuffer.allocate(RANGE_HEADER_LENGTH).put(LOG_RANGE).putLong(logOffset(proposed))
                .putInt(bytes.remaining()).putInt(crc(bytes)).flip();
    }

    /** The CRC32C of {@code bytes} (position to limit). */
    static int crc(final ByteBuffer bytes) {
        final CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return (int) crc.getValue();
    }

    /** Where a {@link #LOG_RANGE} header's bytes go, how many, and their CRC. */
    record Range(long offset, int length, int crc) {
        long end() {
            return offset + length;
        }
    }

    static Range range(final ByteBuffer header) {
        final int p = header.position();
        if (header.remaining() != RANGE_HEADER_LENGTH || header.get(p + TYPE_OFFSET) != LOG_RANGE) {
            throw new IllegalArgumentException("not a log range header: " + header.remaining() + " bytes");
        }
        return new Range(header.getLong(p + LOG_OFFSET_OFFSET), header.getInt(p + RANGE_LENGTH_OFFSET),
                header.getInt(p + RANGE_CRC_OFFSET));
    }

    /** A {@link #METADATA} entry. */
    static ByteBuffer metadata(final String table, final byte op, final byte[] change) {
        final byte[] name = table.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer entry = ByteBuffer.allocate(1 + 2 + name.length + 1 + change.length);
        entry.put(METADATA).putShort((short) name.length).put(name).put(op).put(change);
        return entry.flip();
    }

    /** An {@link #OFFSETS} entry. */
    static ByteBuffer offsets(final byte[] table) {
        return ByteBuffer.allocate(1 + table.length).put(OFFSETS).put(table).flip();
    }

    /** The table of an {@link #OFFSETS} entry. */
    static byte[] offsetTable(final ByteBuffer entry) {
        final byte[] table = new byte[entry.remaining() - 1];
        entry.duplicate().position(entry.position() + 1).get(table);
        return table;
    }

    /** A decoded {@link #METADATA} entry. */
    record MetadataChange(String table, byte op, byte[] change) {
    }

    static MetadataChange metadataChange(final ByteBuffer entry) {
        final ByteBuffer in = entry.duplicate();
        in.get();
        final byte[] name = new byte[in.getShort()];
        in.get(name);
        final byte op = in.get();
        final byte[] change = new byte[in.remaining()];
        in.get(change);
        return new MetadataChange(new String(name, StandardCharsets.UTF_8), op, change);
    }

    static byte type(final ByteBuffer entry) {
        return entry.get(entry.position() + TYPE_OFFSET);
    }

    static long logOffset(final ByteBuffer entry) {
        return entry.getLong(entry.position() + LOG_OFFSET_OFFSET);
    }

    /** The log bytes of a proposed {@link #LOG_RANGE} entry. */
    static ByteBuffer logBytes(final ByteBuffer entry) {
        return entry.duplicate().position(entry.position() + HEADER_LENGTH).slice();
    }
}
