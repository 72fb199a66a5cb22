package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a JSON (type 0) header straight into the outgoing buffer, keys in fastjson's (alphabetical) order, compact:
 * every response to a JSON client passes here, so there is no intermediate string or byte array. Strings that need
 * no escaping (nearly all) are copied as ASCII; others go through {@link Json#string} and UTF-8.
 */
final class JsonHeaderWriter {
    private JsonHeaderWriter() {
    }

    /** Writes the header of {@code cmd} at the writer index; returns the number of bytes written. */
    static int write(final RemotingCommand cmd, final ByteBuf out) {
        final int start = out.writerIndex();
        ascii(out, "{\"code\":");
        number(out, cmd.code());
        final Map<String, String> ext = cmd.extFields();
        if (ext != null) {
            ascii(out, ",\"extFields\":{");
            boolean first = true;
            // Sorted, as fastjson writes them; ext maps are small.
            for (Map.Entry<String, String> e : new TreeMap<>(ext).entrySet()) {
                if (!first) {
                    out.writeByte(',');
                }
                first = false;
                string(out, e.getKey());
                out.writeByte(':');
                string(out, e.getValue());
            }
            out.writeByte('}');
        }
        ascii(out, ",\"flag\":");
        number(out, cmd.flag());
        ascii(out, ",\"language\":");
        string(out, cmd.language());
        ascii(out, ",\"opaque\":");
        number(out, cmd.opaque());
        if (cmd.remark() != null) {
            ascii(out, ",\"remark\":");
            string(out, cmd.remark());
        }
        ascii(out, ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
        number(out, cmd.version());
        out.writeByte('}');
        return out.writerIndex() - start;
    }

    private static void ascii(final ByteBuf out, final String s) {
        ByteBufUtil.writeAscii(out, s);
    }

    private static void number(final ByteBuf out, final int value) {
        ByteBufUtil.writeAscii(out, Integer.toString(value));
    }

    private static void string(final ByteBuf out, final String s) {
        if (s == null) {
            ByteBufUtil.writeAscii(out, "null");
            return;
        }
        if (plainAscii(s)) {
            out.writeByte('"');
            ByteBufUtil.writeAscii(out, s);
            out.writeByte('"');
        } else {
            ByteBufUtil.writeUtf8(out, Json.string(new StringBuilder(s.length() + 8), s));
        }
    }

    /** True when {@code s} is printable ASCII without a quote or a backslash: written as is between quotes. */
    private static boolean plainAscii(final String s) {
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }
}
