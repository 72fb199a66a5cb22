package io.junction.core.meta;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Committed consumer offsets per (group, topic, queue). Commits change memory only; {@link #persistIfChanged()} runs
 * periodically and at shutdown, so a crash can lose the last few seconds of commits and replay those messages
 * (at-least-once), never skip any.
 */
public final class ConsumerOffsets {
    /** Identifies one committed offset. */
    public record Key(String group, String topic, int queueId) {
    }

    private final MetadataFile file;
    private final Map<Key, Long> offsets = new ConcurrentHashMap<>();
    private final AtomicBoolean changed = new AtomicBoolean();
    /** Changed since a replicated store's leader last shipped the table to its followers. */
    private final AtomicBoolean unshipped = new AtomicBoolean();

    private ConsumerOffsets(final MetadataFile file) {
        this.file = file;
    }

    public static ConsumerOffsets load(final MetadataFile file) {
        final ConsumerOffsets table = new ConsumerOffsets(file);
        file.read().ifPresent(table::decode);
        return table;
    }

    public void commit(final String group, final String topic, final int queueId, final long offset) {
        offsets.put(new Key(group, topic, queueId), offset);
        changed.set(true);
        unshipped.set(true);
    }

    /** The committed offset, or -1 when none was committed. */
    public long query(final String group, final String topic, final int queueId) {
        final Long offset = offsets.get(new Key(group, topic, queueId));
        return offset == null ? -1 : offset;
    }

    /** Every committed offset of {@code group} on {@code topic}, by queue id. */
    public Map<Integer, Long> byGroupAndTopic(final String group, final String topic) {
        final Map<Integer, Long> result = new HashMap<>();
        offsets.forEach((k, v) -> {
            if (k.group().equals(group) && k.topic().equals(topic)) {
                result.put(k.queueId(), v);
            }
        });
        return result;
    }

    /** The topics {@code group} committed an offset on, sorted. */
    public SortedSet<String> topicsOf(final String group) {
        final SortedSet<String> topics = new TreeSet<>();
        for (Key k : offsets.keySet()) {
            if (k.group().equals(group)) {
                topics.add(k.topic());
            }
        }
        return topics;
    }

    /** A snapshot of every committed offset. */
    public Map<Key, Long> snapshot() {
        return Map.copyOf(offsets);
    }

    /** Forgets all offsets of a group, or of a topic when {@code group} is null. */
    public void remove(final String group, final String topic) {
        if (offsets.keySet().removeIf(k -> (group == null || k.group().equals(group))
                && (topic == null || k.topic().equals(topic)))) {
            changed.set(true);
            unshipped.set(true);
        }
    }

    /**
     * The whole table, encoded as its file is, when it changed since the last call; else null. A replicated store's
     * leader ships it to its followers now and then (offsets change too often for one Raft entry per commit).
     */
    public byte[] shipIfChanged() {
        if (!unshipped.getAndSet(false)) {
            return null;
        }
        return encode(Map.copyOf(offsets));
    }

    /** The whole table, changed or not (a replica catching up from a snapshot takes it from the leader). */
    public byte[] export() {
        return encode(Map.copyOf(offsets));
    }

    /** The offsets of an {@link #export} (a proxy mirroring a store group's offsets without keeping a file). */
    public static Map<Key, Long> readExport(final byte[] table) {
        final Map<Key, Long> offsets = new HashMap<>();
        decodeInto(ByteBuffer.wrap(table), offsets);
        return offsets;
    }

    /** Replaces the table with one a leader shipped (a follower); written to the file by the next persist. */
    public void applyShipped(final byte[] table) {
        final Map<Key, Long> shipped = new HashMap<>();
        decodeInto(ByteBuffer.wrap(table), shipped);
        offsets.keySet().retainAll(shipped.keySet());
        offsets.putAll(shipped);
        changed.set(true);
    }

    private static byte[] encode(final Map<Key, Long> snapshot) {
        try {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(snapshot.size());
            for (Map.Entry<Key, Long> e : snapshot.entrySet()) {
                out.writeUTF(e.getKey().group());
                out.writeUTF(e.getKey().topic());
                out.writeInt(e.getKey().queueId());
                out.writeLong(e.getValue());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in memory: cannot happen
        }
    }

    private static void decodeInto(final ByteBuffer payload, final Map<Key, Long> into) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload.array(),
                payload.arrayOffset() + payload.position(), payload.remaining()))) {
            final int count = in.readInt();
            for (int i = 0; i < count; i++) {
                into.put(new Key(in.readUTF(), in.readUTF(), in.readInt()), in.readLong());
            }
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "corrupt offset table: " + e.getMessage(), e);
        }
    }

    /** Writes the table when it changed since the last write. */
    public synchronized void persistIfChanged() throws IOException {
        if (!changed.getAndSet(false)) {
            return;
        }
        try {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(bytes);
            final Map<Key, Long> snapshot = Map.copyOf(offsets);
            out.writeInt(snapshot.size());
            for (Map.Entry<Key, Long> e : snapshot.entrySet()) {
                out.writeUTF(e.getKey().group());
                out.writeUTF(e.getKey().topic());
                out.writeInt(e.getKey().queueId());
                out.writeLong(e.getValue());
            }
            out.flush();
            file.write(bytes.toByteArray());
        } catch (IOException | RuntimeException e) {
            changed.set(true);
            throw e;
        }
    }

    private void decode(final ByteBuffer payload) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload.array(),
                payload.arrayOffset() + payload.position(), payload.remaining()))) {
            final int count = in.readInt();
            for (int i = 0; i < count; i++) {
                offsets.put(new Key(in.readUTF(), in.readUTF(), in.readInt()), in.readLong());
            }
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "corrupt metadata file " + file.path() + ": "
                    + e.getMessage(), e);
        }
    }
}
