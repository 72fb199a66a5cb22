package io.junction.spi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Protocol names (MQTT topic levels, AMQP addresses) as core topic names and back. A core name holds letters, digits
 * and {@code _ - | .}; every other character is written as the {@code %XX} escapes of its UTF-8 bytes, and {@code .}
 * and {@code ..} alone become {@code %2E} and {@code %2E%2E}, so that every protocol maps a name the same way.
 */
public final class CoreNames {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private CoreNames() {
    }

    /** Whether a character stands for itself in a core name. */
    public static boolean isPlain(final char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
                || c == '|' || c == '.';
    }

    /** The core name for {@code text} (the same string when every character is plain). */
    public static String escape(final String text) {
        if (text.equals(".")) {
            return "%2E";
        }
        if (text.equals("..")) {
            return "%2E%2E";
        }
        StringBuilder sb = null;
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (isPlain(c)) {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            if (sb == null) {
                sb = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            final int end = Character.isHighSurrogate(c) && i + 1 < text.length() ? i + 2 : i + 1;
            for (byte b : text.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                sb.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
            i = end - 1;
        }
        return sb == null ? text : sb.toString();
    }

    /** The text a core name stands for: {@code %XX} escapes decoded, anything else as it is. */
    public static String unescape(final String core) {
        if (core.indexOf('%') < 0) {
            return core;
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream(core.length());
        for (int i = 0; i < core.length(); i++) {
            final char c = core.charAt(i);
            if (c == '%' && i + 2 < core.length() && hex(core.charAt(i + 1)) >= 0 && hex(core.charAt(i + 2)) >= 0) {
                out.write(hex(core.charAt(i + 1)) << 4 | hex(core.charAt(i + 2)));
                i += 2;
            } else {
                final byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int hex(final char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
