package io.junction.core.meta;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A named-entry table (topics, groups) kept in memory and written through to a {@link MetadataFile} on every change.
 * Changes are rare admin operations, so each one rewrites the whole file; reads never touch the disk.
 *
 * @param <V> the entry type
 */
public final class DurableTable<V> {

    /** Writes and reads one entry. */
    public interface Codec<V> {
        void write(V value, DataOutput out) throws IOException;

        V read(DataInput in) throws IOException;
    }

    /**
     * Where a replicated store's table changes go: proposed to the group, then applied on every replica (this one
     * included) through {@link #apply}. A single node has none.
     */
    public interface Replication {
        /**
         * Proposes a change to table {@code table}; returns once it is applied on this replica.
         *
         * @throws StoreException (UNAVAILABLE) when the group cannot commit it, e.g. this replica does not lead
         */
        void propose(String table, byte op, byte[] payload);
    }

    /** Change kinds, as {@link Replication#propose} ships them and {@link #apply} takes them. */
    public static final byte PUT = 1;
    public static final byte PUT_IF_ABSENT = 2;
    public static final byte REMOVE = 3;

    private final MetadataFile file;
    private final Function<V, String> nameOf;
    private volatile Replication replication;
    private String replicatedName;
    private final Codec<V> codec;
    private final Map<String, V> entries = new ConcurrentHashMap<>();

    private DurableTable(final MetadataFile file, final Function<V, String> nameOf, final Codec<V> codec) {
        this.file = file;
        this.nameOf = nameOf;
        this.codec = codec;
    }

    /** Loads the table from {@code file} (empty when the file does not exist). */
    public static <V> DurableTable<V> load(final MetadataFile file, final Function<V, String> nameOf,
                                           final Codec<V> codec) {
        final DurableTable<V> table = new DurableTable<>(file, nameOf, codec);
        file.read().ifPresent(table::decode);
        return table;
    }

    public Optional<V> get(final String name) {
        return Optional.ofNullable(entries.get(name));
    }

    public Collection<V> all() {
        return List.copyOf(entries.values());
    }

    public int size() {
        return entries.size();
    }

    /** From now on, changes go through {@code through} as changes of table {@code name} (a replicated store). */
    public void replicateThrough(final String name, final Replication through) {
        this.replicatedName = name;
        this.replication = through;
    }

    /** Applies a change the group committed (every replica, in commit order). */
    public void apply(final byte op, final byte[] payload) throws IOException {
        switch (op) {
            case PUT -> putLocal(decodeOne(payload));
            case PUT_IF_ABSENT -> putIfAbsentLocal(decodeOne(payload));
            case REMOVE -> removeLocal(new String(payload, StandardCharsets.UTF_8));
            default -> throw new IOException("unknown table change " + op);
        }
    }

    private byte[] encodeOne(final V value) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        codec.write(value, out);
        out.flush();
        return bytes.toByteArray();
    }

    private V decodeOne(final byte[] payload) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
            return codec.read(in);
        }
    }

    /** Adds or replaces an entry and persists the table before returning. */
    public void put(final V value) throws IOException {
        final Replication through = replication;
        if (through != null) {
            through.propose(replicatedName, PUT, encodeOne(value));
            return;
        }
        putLocal(value);
    }

    private synchronized void putLocal(final V value) throws IOException {
        final V previous = entries.put(nameOf.apply(value), value);
        try {
            persist();
        } catch (IOException | RuntimeException e) {
            restore(nameOf.apply(value), previous);
            throw e;
        }
    }

    /** Adds an entry unless one of that name exists; returns the entry in the table. */
    public V putIfAbsent(final V value) throws IOException {
        final Replication through = replication;
        if (through != null) {
            final V existing = entries.get(nameOf.apply(value));
            if (existing != null) {
                return existing;
            }
            through.propose(replicatedName, PUT_IF_ABSENT, encodeOne(value));
            return entries.getOrDefault(nameOf.apply(value), value);
        }
        return putIfAbsentLocal(value);
    }

    private synchronized V putIfAbsentLocal(final V value) throws IOException {
        final V existing = entries.get(nameOf.apply(value));
        if (existing != null) {
            return existing;
        }
        putLocal(value);
        return value;
    }

    /** Removes an entry and persists the table; false when there was none. */
    public boolean remove(final String name) throws IOException {
        final Replication through = replication;
        if (through != null) {
            final boolean present = entries.containsKey(name);
            through.propose(replicatedName, REMOVE, name.getBytes(StandardCharsets.UTF_8));
            return present;
        }
        return removeLocal(name);
    }

    private synchronized boolean removeLocal(final String name) throws IOException {
        final V previous = entries.remove(name);
        if (previous == null) {
            return false;
        }
        try {
            persist();
        } catch (IOException | RuntimeException e) {
            entries.put(name, previous);
            throw e;
        }
        return true;
    }

    /** The whole table as its file holds it (a replica catching up from a snapshot takes it from the leader). */
    public synchronized byte[] export() throws IOException {
        return encodeAll();
    }

    /** The entries of an {@link #export} (a proxy mirroring a store group's tables without keeping a file). */
    public static <V> List<V> readExport(final byte[] table, final Codec<V> codec) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(table))) {
            final int count = in.readInt();
            if (count < 0) {
                throw new IOException("entry count " + count);
            }
            final List<V> values = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                values.add(codec.read(in));
            }
            return values;
        }
    }

    /**
     * Replaces the whole table with one {@link #export} produced (a replica catching up from a snapshot: the changes
     * the leader purged from its Raft log are in its table) and persists it.
     */
    public synchronized void replaceAll(final byte[] table) throws IOException {
        final Map<String, V> replaced = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(table))) {
            final int count = in.readInt();
            for (int i = 0; i < count; i++) {
                final V v = codec.read(in);
                replaced.put(nameOf.apply(v), v);
            }
        }
        entries.keySet().retainAll(replaced.keySet());
        entries.putAll(replaced);
        persist();
    }

    private void restore(final String name, final V previous) {
        if (previous == null) {
            entries.remove(name);
        } else {
            entries.put(name, previous);
        }
    }

    private void persist() throws IOException {
        file.write(encodeAll());
    }

    private byte[] encodeAll() throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        final List<V> values = new ArrayList<>(entries.values());
        out.writeInt(values.size());
        for (V v : values) {
            codec.write(v, out);
        }
        out.flush();
        return bytes.toByteArray();
    }

    private void decode(final ByteBuffer payload) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload.array(),
                payload.arrayOffset() + payload.position(), payload.remaining()))) {
            final int count = in.readInt();
            for (int i = 0; i < count; i++) {
                final V v = codec.read(in);
                entries.put(nameOf.apply(v), v);
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new StoreException(StoreError.IO_ERROR, "corrupt metadata file " + file.path() + ": "
                    + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new StoreException(StoreError.IO_ERROR, "corrupt metadata file " + file.path(), e);
        }
    }

    /** Writes a string map (attributes). */
    public static void writeMap(final Map<String, String> map, final DataOutput out) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<String, String> e : map.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeUTF(e.getValue());
        }
    }

    /** Reads a string map written by {@link #writeMap}. */
    public static Map<String, String> readMap(final DataInput in) throws IOException {
        final int size = in.readInt();
        if (size < 0 || size > 65_536) {
            throw new IOException("attribute count " + size);
        }
        final Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            map.put(in.readUTF(), in.readUTF());
        }
        return map;
    }
}
