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
        return decoded().get(key);
    }

    @Override
    public boolean containsKey(final Object key) {
        return decoded().containsKey(key);
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
