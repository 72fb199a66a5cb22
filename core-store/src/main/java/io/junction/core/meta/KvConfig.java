package io.junction.core.meta;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * One key-value configuration item (what RocketMQ's name server keeps for {@code mqadmin updateKvConfig}): a value
 * under a key in a namespace of the operator's choosing.
 */
public record KvConfig(String namespace, String key, String value) {
    /** Longest namespace, key or value in UTF-8 bytes (what one metadata string can hold). */
    public static final int MAX_LENGTH = 32 * 1024;

    /** The table name of an item: namespace and key, which neither may hold a NUL. */
    public static String id(final String namespace, final String key) {
        return namespace + '\u0000' + key;
    }

    public String id() {
        return id(namespace, key);
    }

    public static final DurableTable.Codec<KvConfig> CODEC = new DurableTable.Codec<>() {
        @Override
        public void write(final KvConfig c, final DataOutput out) throws IOException {
            out.writeUTF(c.namespace());
            out.writeUTF(c.key());
            out.writeUTF(c.value());
        }

        @Override
        public KvConfig read(final DataInput in) throws IOException {
            return new KvConfig(in.readUTF(), in.readUTF(), in.readUTF());
        }
    };
}
