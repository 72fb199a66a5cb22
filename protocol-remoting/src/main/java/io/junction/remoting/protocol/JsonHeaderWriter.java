package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes a JSON (type 0) header, keys in fastjson's (alphabetical) order, compact. Every response to a JSON client
 * passes here, so the header is rendered with plain array stores into a per-thread scratch array and copied into the
 * outgoing buffer once: no intermediate strings, no per-character buffer calls. Strings that need escaping or are not
 * ASCII (rare: remarks, user text) take the general path through {@link Json#string}.
 */
final class JsonHeaderWriter {
    private static final byte[] CODE = ascii("{\"code\":");
    private static final byte[] EXT_FIELDS = ascii(",\"extFields\":{");
    private static final byte[] FLAG = ascii(",\"flag\":");
    private static final byte[] LANGUAGE = ascii(",\"language\":");
    private static final byte[] OPAQUE = ascii(",\"opaque\":");
    private static final byte[] REMARK = ascii(",\"remark\":");
    private static final byte[] VERSION = ascii(",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
    private static final byte[] NULL = ascii("null");

    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch();
        }
    };

    private JsonHeaderWriter() {
    }

    private static byte[] ascii(final String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes the header of {@code cmd} at the writer index; returns the number of bytes written. */
    static int write(final RemotingCommand cmd, final ByteBuf out) {
        final Scratch s = SCRATCH.get();
        s.length = 0;
        s.put(CODE).number(cmd.code());
        final Map<String, String> ext = cmd.extFields();
        if (ext != null) {
            s.put(EXT_FIELDS);
            boolean first = true;
            // Sorted, as fastjson writes them; ext maps are small, and the busiest responses come sorted already.
            for (Map.Entry<String, String> e : (sorted(ext) ? ext : new TreeMap<>(ext)).entrySet()) {
                if (!first) {
                    s.put((byte) ',');
                }
                first = false;
                s.string(e.getKey()).put((byte) ':').string(e.getValue());
            }
            s.put((byte) '}');
        }
        s.put(FLAG).number(cmd.flag());
        s.put(LANGUAGE).string(cmd.language());
        s.put(OPAQUE).number(cmd.opaque());
        if (cmd.remark() != null) {
            s.put(REMARK).string(cmd.remark());
        }
        s.put(VERSION).number(cmd.version()).put((byte) '}');
        out.writeBytes(s.bytes, 0, s.length);
        s.shrinkIfHuge();
        return s.length;
    }

    /** Whether the map iterates its keys in ascending order (an insertion-ordered map filled in that order). */
    private static boolean sorted(final Map<String, String> ext) {
        if (ext.size() < 2) {
            return true;
        }
        if (!(ext instanceof LinkedHashMap) && !(ext instanceof SortedMap)) {
            return false; // hash order: sorted only by chance
        }
        String previous = null;
        for (String key : ext.keySet()) {
            if (previous != null && previous.compareTo(key) > 0) {
                return false;
            }
            previous = key;
        }
        return true;
    }

    /** A growable byte array owned by one thread. */
    private static final class Scratch {
        private static final int INITIAL = 512;
        private static final int KEEP_AT_MOST = 64 * 1024;
        byte[] bytes = new byte[INITIAL];
        int length;

        private void room(final int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
            }
        }

        Scratch put(final byte b) {
            room(1);
            bytes[length++] = b;
            return this;
        }

        Scratch put(final byte[] literal) {
            room(literal.length);
            System.arraycopy(literal, 0, bytes, length, literal.length);
            length += literal.length;
            return this;
        }

        Scratch number(final int value) {
            room(11);
            if (value == Integer.MIN_VALUE) {
                return put(ascii(Integer.toString(value)));
            }
            int v = value;
            if (v < 0) {
                bytes[length++] = '-';
                v = -v;
            }
            int digits = 1;
            for (int rest = v / 10; rest != 0; rest /= 10) {
                digits++;
            }
            for (int i = length + digits - 1; i >= length; i--) {
                bytes[i] = (byte) ('0' + v % 10);
                v /= 10;
            }
            length += digits;
            return this;
        }

        /** A JSON string literal; the plain-ASCII case (nearly all) is copied char by char. */
        Scratch string(final String value) {
            if (value == null) {
                return put(NULL);
            }
            final int n = value.length();
            room(n + 2);
            final int start = length;
            bytes[length++] = '"';
            for (int i = 0; i < n; i++) {
                final char c = value.charAt(i);
                if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
                    length = start;
                    return put(Json.string(new StringBuilder(n + 16), value).toString()
                            .getBytes(StandardCharsets.UTF_8));
                }
                bytes[length++] = (byte) c;
            }
            bytes[length++] = '"';
            return this;
        }

        void shrinkIfHuge() {
            if (bytes.length > KEEP_AT_MOST) {
                bytes = new byte[INITIAL];
            }
        }
    }
}
