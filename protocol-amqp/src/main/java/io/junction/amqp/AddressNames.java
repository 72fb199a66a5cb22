package io.junction.amqp;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The reversible mapping between AMQP addresses (and the names in subscription identities) and core names.
 *
 * <p>Core names take letters, digits and {@code _ - | .}; every other character is written as {@code %XX} per UTF-8
 * byte (upper-case hex) and {@code %} itself as {@code %25}, so {@code orders} stays {@code orders} and
 * {@code a/b} becomes {@code a%2Fb}. {@code .} and {@code ..} become {@code %2E} and {@code %2E%2E}. The same scheme
 * as the MQTT front-end's first topic level, so an AMQP address and an MQTT topic of the same text meet on one core
 * topic. The core's dead-letter and retry topics keep their names (see {@link #isSystem}).
 */
final class AddressNames {
    /** Longest core name the store takes. */
    static final int MAX_CORE_LENGTH = 255;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private AddressNames() {
    }

    /** The core name of an address, or null when it would be too long for the store. */
    static String toCore(final String address) {
        final String core = isSystem(address) ? address : escape(address);
        return core.isEmpty() || core.length() > MAX_CORE_LENGTH ? null : core;
    }

    static String escape(final String text) {
        if (text.equals(".")) {
            return "%2E";
        }
        if (text.equals("..")) {
            return "%2E%2E";
        }
        StringBuilder sb = null;
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (plain(c)) {
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

    /**
     * A group's dead-letter or retry topic ({@code %DLQ%<group>}, {@code %RETRY%<group>_<topic>}) named as the core
     * names it, so AMQP clients can read dead letters: such a name passes through as it is.
     */
    static boolean isSystem(final String name) {
        final boolean prefixed = name.startsWith("%DLQ%") || name.startsWith("%RETRY%");
        if (!prefixed) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (!plain(c) && c != '%') {
                return false;
            }
        }
        return true;
    }

    /** The address a core topic stands for. */
    static String toAddress(final String core) {
        if (core.indexOf('%') < 0 || isSystem(core)) {
            return core;
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream(core.length());
        for (int i = 0; i < core.length(); i++) {
            final char c = core.charAt(i);
            if (c == '%' && i + 2 < core.length()
                    && hex(core.charAt(i + 1)) >= 0 && hex(core.charAt(i + 2)) >= 0) {
                out.write(hex(core.charAt(i + 1)) << 4 | hex(core.charAt(i + 2)));
                i += 2;
            } else {
                final byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static boolean plain(final char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
                || c == '|' || c == '.';
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
