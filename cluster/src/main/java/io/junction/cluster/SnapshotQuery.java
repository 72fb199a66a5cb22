package io.junction.cluster;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The read-only Raft queries a replica catching up from a snapshot sends to its leader (Ratis routes them to the
 * leader), and their answers.
 *
 * <pre>
 * request                                   answer
 * | LOG (1) | from (8) | to (8) |           | CRC32C of the bytes (4) | whole records of [from, to) from from |
 * | TABLES (1) |                           | count (4) | { name (UTF) | length (4) | table } x count |
 * </pre>
 */
final class SnapshotQuery {
    static final byte LOG = 2;
    static final byte TABLES = 3;
    /** The most log bytes one answer carries (one larger record travels whole). */
    static final int LOG_CHUNK_BYTES = 1 << 20;
    private static final int MAX_TABLES = 16;

    private SnapshotQuery() {
    }

    static ByteBuffer log(final long from, final long to) {
        return ByteBuffer.allocate(17).put(LOG).putLong(from).putLong(to).flip();
    }

    static ByteBuffer tables() {
        return ByteBuffer.allocate(1).put(0, TABLES);
    }

    static ByteBuffer logAnswer(final ByteBuffer records) {
        final CRC32C crc = new CRC32C();
        crc.update(records.duplicate());
        return ByteBuffer.allocate(4 + records.remaining()).putInt((int) crc.getValue()).put(records.duplicate())
                .flip();
    }

    /** The records of a {@link #logAnswer}, after checking its CRC. */
    static ByteBuffer readLog(final ByteBuffer answer) throws IOException {
        final ByteBuffer records = answer.duplicate().position(answer.position() + 4).slice();
        final CRC32C crc = new CRC32C();
        crc.update(records.duplicate());
        if ((int) crc.getValue() != answer.getInt(answer.position())) {
            throw new IOException("log range from the leader fails its CRC check");
        }
        return records;
    }

    static ByteBuffer tablesAnswer(final Map<String, byte[]> tables) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(tables.size());
        for (Map.Entry<String, byte[]> t : tables.entrySet()) {
            out.writeUTF(t.getKey());
            out.writeInt(t.getValue().length);
            out.write(t.getValue());
        }
        out.flush();
        return ByteBuffer.wrap(bytes.toByteArray());
    }

    static Map<String, byte[]> readTables(final ByteBuffer answer) throws IOException {
        final ByteBuffer in = answer.duplicate();
        final int count = in.getInt();
        if (count < 0 || count > MAX_TABLES) {
            throw new IOException("table count " + count);
        }
        final Map<String, byte[]> tables = new HashMap<>();
        for (int i = 0; i < count; i++) {
            final byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
            in.get(name);
            final int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new IOException("table length " + length);
            }
            final byte[] table = new byte[length];
            in.get(table);
            tables.put(new String(name, StandardCharsets.UTF_8), table);
        }
        return tables;
    }
}
