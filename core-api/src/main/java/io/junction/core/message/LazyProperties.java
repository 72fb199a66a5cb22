package io.junction.core.message;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
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
 * <p>Read-only, like the record it reads from. Safe to share between threads: a race decodes twice to equal maps.
 */
final class LazyProperties extends AbstractMap<String, String> {
    private final ByteBuffer record;
    private final int position;
    private final int length;
    private volatile Map<String, String> decoded;

    /** The properties are {@code length} UTF-8 bytes at {@code position} of {@code record} (not moved or changed). */
    LazyProperties(final ByteBuffer record, final int position, final int length) {
        this.record = record;
        this.position = position;
        this.length = length;
    }

    private Map<String, String> decoded() {
        Map<String, String> d = decoded;
        if (d == null) {
            final byte[] bytes = new byte[length];
            record.get(position, bytes);
            d = Collections.unmodifiableMap(MessageProperties.decode(new String(bytes,
                    StandardCharsets.UTF_8)));
            decoded = d;
        }
        return d;
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
        String value = null;
        int start = position;
        final int end = position + length;
        while (start < end) {
            final int stop = next(start, end, (byte) MessageProperties.PROPERTY_SEPARATOR);
            final int sep = next(start, stop, (byte) MessageProperties.NAME_VALUE_SEPARATOR);
            if (sep > start && sep < stop && named(start, sep, name)) {
                value = text(sep + 1, stop);
            }
            start = stop + 1;
        }
        return value;
    }

    /** Whether some entry's name is not {@link MessageProperties#isReserved reserved}, read from the bytes. */
    boolean hasUnreservedName() {
        final Map<String, String> d = decoded;
        if (d != null) {
            return d.keySet().stream().anyMatch(n -> !MessageProperties.isReserved(n));
        }
        int start = position;
        final int end = position + length;
        while (start < end) {
            final int stop = next(start, end, (byte) MessageProperties.PROPERTY_SEPARATOR);
            final int sep = next(start, stop, (byte) MessageProperties.NAME_VALUE_SEPARATOR);
            // Names starting with "__" are reserved: no string needed for the mappings' own bookkeeping.
            if (sep > start && sep < stop && !(sep - start >= 2 && record.get(start) == '_'
                    && record.get(start + 1) == '_') && !MessageProperties.isReserved(text(start, sep))) {
                return true;
            }
            start = stop + 1;
        }
        return false;
    }

    /** The first index in [from, to) holding {@code b}, else {@code to}. */
    private int next(final int from, final int to, final byte b) {
        int i = from;
        while (i < to && record.get(i) != b) {
            i++;
        }
        return i;
    }

    private boolean named(final int from, final int to, final String name) {
        if (to - from != name.length()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (record.get(from + i) != (byte) name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private String text(final int from, final int to) {
        final byte[] bytes = new byte[to - from];
        record.get(from, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
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
