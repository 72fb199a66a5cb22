package io.junction.mqtt;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The deterministic, reversible mapping between an MQTT topic's first level and a core topic name.
 *
 * <p>Core names take letters, digits and {@code _ - | .} (plus {@code %}). Every other character of the first level
 * is written as {@code %XX} per UTF-8 byte (upper-case hex), and {@code %} itself as {@code %25}, so
 * {@code $SYS} becomes {@code %24SYS} and {@code café} becomes {@code caf%C3%A9}. The names {@code .} and {@code ..}
 * (not valid directory names) become {@code %2E} and {@code %2E%2E}; an empty first level (topic {@code /a}) becomes
 * the lone {@code %}, which no escape produces. The front-end's own topics start with {@code %MQTT%}, which no escape
 * produces either ({@code M} is not a hex digit).
 */
final class CoreTopics {
    /** Retained messages, one record per retained publish or clear; replayed at start. */
    static final String RETAINED = "%MQTT%RETAINED";
    /** Durable session state (subscriptions of persistent sessions); replayed at start. */
    static final String SESSIONS = "%MQTT%SESSIONS";
    static final String EMPTY_LEVEL = "%";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private CoreTopics() {
    }

    /** The core topic for an MQTT topic (or a filter whose first level has no wildcard). */
    static String coreTopicOf(final String mqttTopic) {
        final int slash = mqttTopic.indexOf('/');
        return escape(slash < 0 ? mqttTopic : mqttTopic.substring(0, slash));
    }

    static String escape(final String level) {
        if (level.isEmpty()) {
            return EMPTY_LEVEL;
        }
        if (level.equals(".")) {
            return "%2E";
        }
        if (level.equals("..")) {
            return "%2E%2E";
        }
        StringBuilder sb = null;
        for (int i = 0; i < level.length(); i++) {
            final char c = level.charAt(i);
            if (plain(c)) {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            if (sb == null) {
                sb = new StringBuilder(level.length() + 8).append(level, 0, i);
            }
            final int end = Character.isHighSurrogate(c) && i + 1 < level.length() ? i + 2 : i + 1;
            for (byte b : level.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                sb.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
            i = end - 1;
        }
        return sb == null ? level : sb.toString();
    }

    /** The MQTT first level a core topic stands for (the topic other protocols' messages are delivered under). */
    static String unescape(final String core) {
        if (core.equals(EMPTY_LEVEL)) {
            return "";
        }
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

    /** Core topics that MQTT wildcard subscriptions starting at the root never read (store and front-end internals). */
    static boolean isInternal(final String core) {
        return core.startsWith("%RETRY%") || core.startsWith("%DLQ%") || core.startsWith("%MQTT%")
                || core.regionMatches(true, 0, "rmq_sys_", 0, 8) || core.startsWith("%24");
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
