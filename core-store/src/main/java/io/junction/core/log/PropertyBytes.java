package io.junction.core.log;

import io.junction.core.message.MessageProperties;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A message's properties rendered as the record's property bytes (RocketMQ's property string in UTF-8:
 * per property the name, byte 1, the value, byte 2; null names or values skipped), measured and then written straight
 * into the record. Encoding the map into a string first and the string into bytes copied every property twice more
 * on the sender's thread (an event loop for the Remoting front-end); the bytes are the same.
 */
final class PropertyBytes {
    private static final byte NAME_VALUE_SEPARATOR = 1;
    private static final byte PROPERTY_SEPARATOR = 2;
    private static final int ASCII_LIMIT = 0x80;

    private PropertyBytes() {
    }

    /** Length in bytes of {@code properties}, plus {@code UNIQ_KEY = assignedUniqueId} when that is not null. */
    static int length(final Map<String, String> properties, final String assignedUniqueId) {
        long length = 0;
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getKey() != null && e.getValue() != null) {
                length += utf8Length(e.getKey()) + utf8Length(e.getValue()) + 2;
            }
        }
        if (assignedUniqueId != null) {
            length += utf8Length(MessageProperties.UNIQUE_ID) + utf8Length(assignedUniqueId) + 2;
        }
        return (int) Math.min(length, Integer.MAX_VALUE);
    }

    /** Writes what {@link #length} measured at the buffer's position, advancing it. */
    static void write(final ByteBuffer buf, final Map<String, String> properties, final String assignedUniqueId) {
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getKey() != null && e.getValue() != null) {
                write(buf, e.getKey(), e.getValue());
            }
        }
        if (assignedUniqueId != null) {
            write(buf, MessageProperties.UNIQUE_ID, assignedUniqueId);
        }
    }

    private static void write(final ByteBuffer buf, final String name, final String value) {
        put(buf, name);
        buf.put(NAME_VALUE_SEPARATOR);
        put(buf, value);
        buf.put(PROPERTY_SEPARATOR);
    }

    /** Bytes of {@code s} in UTF-8; non-ASCII strings (rare in properties) are measured by the JDK's encoder. */
    private static int utf8Length(final String s) {
        final int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= ASCII_LIMIT) {
                return s.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return n;
    }

    /** {@code s} in UTF-8 at the buffer's position: ASCII char by char, anything else by the JDK's encoder. */
    private static void put(final ByteBuffer buf, final String s) {
        final int n = s.length();
        final int start = buf.position();
        if (buf.hasArray() && buf.remaining() >= n) {
            final byte[] a = buf.array();
            final int at = buf.arrayOffset() + start;
            int i = 0;
            while (i < n) {
                final char c = s.charAt(i);
                if (c >= ASCII_LIMIT) {
                    break;
                }
                a[at + i] = (byte) c;
                i++;
            }
            if (i == n) {
                buf.position(start + n);
                return;
            }
        }
        // Not ASCII, or not a heap buffer: the bytes written above (if any) are written over.
        buf.put(s.getBytes(StandardCharsets.UTF_8));
    }
}
