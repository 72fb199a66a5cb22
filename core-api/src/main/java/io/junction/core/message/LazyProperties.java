package io.junction.core.message;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * A stored record's properties, decoded on first use. Most reads never look at them — a RocketMQ pull hands the
 * record out as it is, and a match-all filter asks nothing — so decoding the string and building the map for every
 * message read was a large share of the read path's cost.
 *
 * <p>A front-end often wants only a few of them (Kafka's fetch: the key, the tombstone mark, whether there are
 * headers), so {@link #get} of an ASCII name and {@link #hasUnreservedName} answer from the bytes, without building the
 * map, until something asks for the whole map. They answer as the map would: the last entry of a name wins, fragments
 * without a name-value separator are skipped. The separators are single bytes that never occur inside a multi-byte
 * UTF-8 sequence, so splitting the bytes gives the entries that splitting the decoded string gives.
 *
 * <p>The bytes are split once, on the first such question, into an {@link Entries} index (a copy of the bytes and where
 * each entry's name and value lie): Kafka's fetch asks five names and "any header?" of every record, and scanning the
 * buffer byte by byte for each of them was half of its event loop's time (benchmarks/README.md, Kafka).
 *
 * <p>Read-only, like the record it reads from. Safe to share between threads: a race decodes twice to equal maps, and
 * splits twice to equal indexes (each published whole, through final fields).
 */
final class LazyProperties extends AbstractMap<String, String> {
    private final ByteBuffer record;
    private final int position;
    private final int length;
    private volatile Map<String, String> decoded;
    private volatile Entries entries;

    /**
     * The property bytes and, per entry with a non-empty name, three positions in them: where the name starts, where
     * its name-value separator is, and where the entry ends (its property separator, or the end).
     */
    private static final class Entries {
        final byte[] bytes;
        final int[] bounds;
        final int count;

        Entries(final byte[] bytes) {
            this.bytes = bytes;
            int[] b = new int[12];
            int n = 0;
            int start = 0;
            while (start < bytes.length) {
                int stop = start;
                int sep = -1;
                while (stop < bytes.length && bytes[stop] != MessageProperties.PROPERTY_SEPARATOR) {
                    if (sep < 0 && bytes[stop] == MessageProperties.NAME_VALUE_SEPARATOR) {
                        sep = stop;
                    }
                    stop++;
                }
                if (sep > start) {
                    if (3 * n + 3 > b.length) {
                        b = Arrays.copyOf(b, b.length * 2);
                    }
                    b[3 * n] = start;
                    b[3 * n + 1] = sep;
                    b[3 * n + 2] = stop;
                    n++;
                }
                start = stop + 1;
            }
            this.bounds = b;
            this.count = n;
        }

        /** The value of the last entry named {@code name} (ASCII), or null. */
        String get(final String name) {
            for (int i = count - 1; i >= 0; i--) {
                final int from = bounds[3 * i];
                final int sep = bounds[3 * i + 1];
                if (sep - from == name.length() && named(from, name)) {
                    return new String(bytes, sep + 1, bounds[3 * i + 2] - sep - 1, StandardCharsets.UTF_8);
                }
            }
            return null;
        }

        private boolean named(final int from, final String name) {
            for (int i = 0; i < name.length(); i++) {
                if (bytes[from + i] != (byte) name.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        boolean hasUnreservedName() {
            for (int i = 0; i < count; i++) {
                if (!MessageProperties.isReserved(bytes, bounds[3 * i], bounds[3 * i + 1])) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The properties are {@code length} UTF-8 bytes at {@code position} of {@code record} (not moved or changed). */
    LazyProperties(final ByteBuffer record, final int position, final int length) {
        this.record = record;
        this.position = position;
        this.length = length;
    }

    private byte[] bytes() {
        final byte[] bytes = new byte[length];
        record.get(position, bytes);
        return bytes;
    }

    private Map<String, String> decoded() {
        Map<String, String> d = decoded;
        if (d == null) {
            final Entries e = entries;
            d = Collections.unmodifiableMap(MessageProperties.decode(new String(e != null ? e.bytes : bytes(),
                    StandardCharsets.UTF_8)));
            decoded = d;
        }
        return d;
    }

    private Entries entries() {
        Entries e = entries;
        if (e == null) {
            e = new Entries(bytes());
            entries = e;
        }
        return e;
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return decoded().entrySet();
    }

    @Override
    public String get(final Object key) {
        final Map<String, String> d = decoded;
        if (d != null || !(key instanceof String name) || !ascii(name)) {
            return (d != null ? d : decoded()).get(key);
        }
        return entries().get(name);
    }

    /** Whether some entry's name is not {@link MessageProperties#isReserved reserved}, read from the bytes. */
    boolean hasUnreservedName() {
        final Map<String, String> d = decoded;
        if (d != null) {
            return d.keySet().stream().anyMatch(n -> !MessageProperties.isReserved(n));
        }
        return entries().hasUnreservedName();
    }

    private static boolean ascii(final String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean containsKey(final Object key) {
        return decoded == null && key instanceof String ? get(key) != null : decoded().containsKey(key);
    }

    @Override
    public int size() {
        return decoded().size();
    }

    @Override
    public boolean isEmpty() {
        return length == 0 || decoded().isEmpty();
    }
}
