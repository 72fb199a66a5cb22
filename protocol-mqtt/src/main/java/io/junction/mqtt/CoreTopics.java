package io.junction.mqtt;

import io.junction.spi.CoreNames;


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
    /** QoS 2 state of persistent sessions, both directions (see {@link Qos2Ledger}); replayed at start. */
    static final String QOS2 = "%MQTT%QOS2";
    static final String EMPTY_LEVEL = "%";

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
        return CoreNames.escape(level);
    }

    /** The MQTT first level a core topic stands for (the topic other protocols' messages are delivered under). */
    static String unescape(final String core) {
        if (core.equals(EMPTY_LEVEL)) {
            return "";
        }
        return CoreNames.unescape(core);
    }

    /** Core topics that MQTT wildcard subscriptions starting at the root never read (store and front-end internals). */
    static boolean isInternal(final String core) {
        return core.startsWith("%RETRY%") || core.startsWith("%DLQ%") || core.startsWith("%MQTT%")
                || core.startsWith("%KAFKA%") || core.regionMatches(true, 0, "rmq_sys_", 0, 8)
                || core.startsWith("%24");
    }
}
