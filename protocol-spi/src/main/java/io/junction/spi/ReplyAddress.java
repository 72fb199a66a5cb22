package io.junction.spi;

/**
 * Reads the canonical reply-to address ({@code MessageProperties.REPLY_TO}): a core topic name, optionally followed by
 * {@code /} and further MQTT topic levels. A reply sent to it is stored in that core topic; when MQTT levels follow,
 * with the whole MQTT topic as the message's {@code mqtt.topic}, exactly where an MQTT publish to that topic lands.
 */
public final class ReplyAddress {
    /** The message property holding a message's whole MQTT topic (its first level is the core topic). */
    public static final String MQTT_TOPIC = "mqtt.topic";
    /** The core name the MQTT front-end gives an empty first level (topic {@code /a}). */
    private static final String EMPTY_LEVEL = "%";

    private ReplyAddress() {
    }

    /** The core topic a reply to {@code replyTo} is stored in. */
    public static String coreTopic(final String replyTo) {
        final int slash = replyTo.indexOf('/');
        return slash < 0 ? replyTo : replyTo.substring(0, slash);
    }

    /** Whether {@code replyTo} names an MQTT topic of several levels (a reply must carry it as its MQTT topic). */
    public static boolean hasLevels(final String replyTo) {
        return replyTo.indexOf('/') >= 0;
    }

    /** The address as a topic name MQTT and other protocols' clients see: the core topic unescaped, levels kept. */
    public static String topicName(final String replyTo) {
        final int slash = replyTo.indexOf('/');
        final String core = slash < 0 ? replyTo : replyTo.substring(0, slash);
        final String first = EMPTY_LEVEL.equals(core) ? "" : CoreNames.unescape(core);
        return slash < 0 ? first : first + replyTo.substring(slash);
    }
}
