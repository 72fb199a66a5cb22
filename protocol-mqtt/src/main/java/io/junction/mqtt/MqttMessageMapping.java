package io.junction.mqtt;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.spi.ReplyAddress;
import io.netty.handler.codec.mqtt.MqttProperties.BinaryProperty;
import io.netty.handler.codec.mqtt.MqttProperties.IntegerProperty;
import io.netty.handler.codec.mqtt.MqttProperties.MqttProperty;
import io.netty.handler.codec.mqtt.MqttProperties.StringPair;
import io.netty.handler.codec.mqtt.MqttProperties.StringProperty;
import io.netty.handler.codec.mqtt.MqttProperties.UserProperties;
import io.netty.handler.codec.mqtt.MqttProperties.UserProperty;
import io.netty.handler.codec.mqtt.MqttProperties;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one place MQTT publishes map to and from the canonical message.
 *
 * <table>
 * <caption>MQTT PUBLISH ↔ core message</caption>
 * <tr><th>MQTT</th><th>core</th></tr>
 * <tr><td>topic name</td><td>topic = first level, escaped by {@link CoreTopics}; the whole name in property
 *     {@value #TOPIC}; queue = hash of the whole name (one MQTT topic stays in one queue, so in order)</td></tr>
 * <tr><td>payload</td><td>body</td></tr>
 * <tr><td>QoS</td><td>{@value #QOS}</td></tr>
 * <tr><td>retain flag</td><td>{@value #RETAIN} ("true" when set)</td></tr>
 * <tr><td>publishing client id</td><td>{@value #CLIENT_ID} (for No Local)</td></tr>
 * <tr><td>user properties</td><td>user properties, same name and value; a name the core or this mapping reserves
 *     (see {@link #isReserved}) or a repeated name keeps only its first value</td></tr>
 * <tr><td>content type</td><td>{@code CONTENT_TYPE}</td></tr>
 * <tr><td>payload format indicator</td><td>{@value #PAYLOAD_FORMAT}</td></tr>
 * <tr><td>message expiry interval</td><td>{@value #EXPIRES_AT} (absolute epoch ms); expired messages are not
 *     delivered and the remaining interval is sent on</td></tr>
 * <tr><td>response topic</td><td>the canonical reply-to address {@code REPLY_TO}: its first level escaped as a core
 *     topic, further levels kept ({@link ReplyAddress})</td></tr>
 * <tr><td>correlation data</td><td>the canonical {@code CORRELATION_ID}: the bytes as text when they are UTF-8 text,
 *     else {@value #BASE64_PREFIX} and their base64 (and back)</td></tr>
 * </table>
 *
 * <p>A core message without {@value #TOPIC} (sent by another protocol to core topic T) is delivered under the MQTT
 * topic {@code unescape(T)}, so subscribers of {@code T} and {@code T/#} get it, at QoS 1 at most as the subscription
 * allows; all its non-reserved properties become user properties.
 */
final class MqttMessageMapping {
    static final String TOPIC = "mqtt.topic";
    static final String QOS = "mqtt.qos";
    static final String RETAIN = "mqtt.retain";
    static final String CLIENT_ID = "mqtt.client";
    static final String PAYLOAD_FORMAT = "mqtt.payload.format";
    static final String EXPIRES_AT = "mqtt.expires.at";
    /** Marks a correlation id that stands for correlation data which is not UTF-8 text. */
    static final String BASE64_PREFIX = "base64:";

    private MqttMessageMapping() {
    }

    /** The outcome of mapping a PUBLISH: a message, or the reason it cannot be stored. */
    record Inbound(Message message, String error) {
    }

    /** What a delivery needs from a stored message. */
    record Outbound(String topic, byte[] payload, int qos, boolean retain, MqttProperties properties,
                    String publisher, long expiresAt) {
    }

    static boolean isReserved(final String name) {
        return name.startsWith("mqtt.") || MessageProperties.isReserved(name);
    }

    /**
     * Maps a PUBLISH. {@code queueCount} is the core topic's queue count when it exists (else 0: the core picks a
     * queue, only the topic's first message takes that path); {@code uniqueId} is the message's unique id when chosen
     * in advance (a recorded QoS 2 PUBLISH), else null and the core assigns one.
     */
    static Inbound toCore(final String mqttTopic, final MqttNamespace namespace, final byte[] payload, final int qos,
                          final boolean retain, final MqttProperties properties, final String clientId,
                          final int queueCount, final String uniqueId, final long now) {
        final String core = namespace.core(CoreTopics.coreTopicOf(mqttTopic));
        if (core.length() > 255) {
            return new Inbound(null, "first topic level too long");
        }
        if (!MessageProperties.isEncodable(mqttTopic)) {
            return new Inbound(null, "topic has control characters");
        }
        final Message.Builder b = Message.builder(core).body(payload)
                .queueId(queueCount > 0 ? Math.floorMod(mqttTopic.hashCode(), queueCount) : Message.ANY_QUEUE)
                .bornTimestamp(now)
                .uniqueId(uniqueId)
                .property(TOPIC, mqttTopic)
                .property(QOS, Integer.toString(qos));
        if (retain) {
            b.property(RETAIN, "true");
        }
        if (clientId != null && MessageProperties.isEncodable(clientId)) {
            b.property(CLIENT_ID, clientId);
        }
        if (properties != null && !properties.isEmpty()) {
            b.property(MessageProperties.CONTENT_TYPE, encodable(stringProperty(properties,
                    MqttProperties.CONTENT_TYPE)));
            final Integer pfi = intProperty(properties, MqttProperties.PAYLOAD_FORMAT_INDICATOR);
            if (pfi != null) {
                b.property(PAYLOAD_FORMAT, pfi.toString());
            }
            final Integer expiry = intProperty(properties, MqttProperties.PUBLICATION_EXPIRY_INTERVAL);
            if (expiry != null) {
                b.property(EXPIRES_AT, Long.toString(now + (expiry & 0xFFFFFFFFL) * 1000));
            }
            final String responseTopic = encodable(stringProperty(properties, MqttProperties.RESPONSE_TOPIC));
            if (responseTopic != null && !responseTopic.isEmpty()) {
                b.property(MessageProperties.REPLY_TO, replyAddress(responseTopic));
            }
            final MqttProperty<?> corr = properties.getProperty(MqttProperties.CORRELATION_DATA);
            if (corr instanceof BinaryProperty bp && bp.value() != null) {
                b.property(MessageProperties.CORRELATION_ID, correlationId(bp.value()));
            }
            final Set<String> seen = new HashSet<>();
            for (StringPair p : userProperties(properties)) {
                if (p.key != null && p.value != null && !p.key.isEmpty() && !isReserved(p.key)
                        && MessageProperties.isEncodable(p.key) && MessageProperties.isEncodable(p.value)
                        && seen.add(p.key)) {
                    b.property(p.key, p.value); // first value of a repeated name wins
                }
            }
        }
        return new Inbound(b.build(), null);
    }

    /** Maps a stored message for delivery; {@code coreTopic} names the MQTT topic of messages without one. */
    static Outbound fromCore(final String coreTopic, final Map<String, String> props, final byte[] body,
                             final long now) {
        // One pass over the entries. A stored message's properties answer a lookup by scanning the record's bytes
        // until they are decoded, and the user properties need the decoded entries anyway: looking up the nine names
        // first scanned every delivered message's properties nine times (a sixth of the broker's CPU in a fan-in).
        String topic = null;
        String qos = null;
        String retain = null;
        String pfi = null;
        String exp = null;
        String ct = null;
        String replyTo = null;
        String correlationId = null;
        String publisher = null;
        final List<StringPair> users = new ArrayList<>();
        for (Map.Entry<String, String> e : props.entrySet()) {
            final String name = e.getKey();
            switch (name) {
                case TOPIC -> topic = e.getValue();
                case QOS -> qos = e.getValue();
                case RETAIN -> retain = e.getValue();
                case PAYLOAD_FORMAT -> pfi = e.getValue();
                case EXPIRES_AT -> exp = e.getValue();
                case CLIENT_ID -> publisher = e.getValue();
                case MessageProperties.CONTENT_TYPE -> ct = e.getValue();
                case MessageProperties.REPLY_TO -> replyTo = e.getValue();
                case MessageProperties.CORRELATION_ID -> correlationId = e.getValue();
                default -> {
                }
            }
            if (!isReserved(name)) {
                users.add(new StringPair(name, e.getValue()));
            }
        }
        final MqttProperties out = new MqttProperties();
        long expiresAt = 0;
        if (pfi != null) {
            out.add(new IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, parseInt(pfi, 0)));
        }
        if (exp != null) {
            expiresAt = parseLong(exp);
            final long remaining = Math.max(0, (expiresAt - now + 999) / 1000);
            out.add(new IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, (int) remaining));
        }
        if (ct != null) {
            out.add(new StringProperty(MqttProperties.CONTENT_TYPE, ct));
        }
        if (replyTo != null) {
            final String responseTopic = ReplyAddress.topicName(replyTo);
            if (isTopicName(responseTopic)) {
                out.add(new StringProperty(MqttProperties.RESPONSE_TOPIC, responseTopic));
            }
        }
        if (correlationId != null) {
            out.add(new BinaryProperty(MqttProperties.CORRELATION_DATA, correlationData(correlationId)));
        }
        if (!users.isEmpty()) {
            out.add(new UserProperties(users));
        }
        return new Outbound(topic != null ? topic : CoreTopics.unescape(coreTopic), body, parseInt(qos, 1),
                "true".equals(retain), out, publisher, expiresAt);
    }

    /** The reply-to address of a response topic: its first level as the core topic it is stored in, then the rest. */
    static String replyAddress(final String responseTopic) {
        final int slash = responseTopic.indexOf('/');
        return CoreTopics.coreTopicOf(responseTopic) + (slash < 0 ? "" : responseTopic.substring(slash));
    }

    /** Correlation data as a correlation id: the text it holds, or {@value #BASE64_PREFIX} and its base64. */
    static String correlationId(final byte[] data) {
        try {
            final String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data)).toString();
            if (MessageProperties.isEncodable(text) && !text.startsWith(BASE64_PREFIX)) {
                return text;
            }
        } catch (CharacterCodingException e) {
            // not text: carried as base64 below
        }
        return BASE64_PREFIX + Base64.getEncoder().encodeToString(data);
    }

    /** A correlation id as correlation data: the bytes {@link #correlationId} made it from, or its UTF-8 bytes. */
    static byte[] correlationData(final String correlationId) {
        if (correlationId.startsWith(BASE64_PREFIX)) {
            try {
                return Base64.getDecoder().decode(correlationId.substring(BASE64_PREFIX.length()));
            } catch (IllegalArgumentException e) {
                // another protocol's id that merely looks like ours: its text is the data
            }
        }
        return correlationId.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether a PUBLISH may carry {@code topic} as its response topic: a topic name, not a filter. */
    private static boolean isTopicName(final String topic) {
        return !topic.isEmpty() && topic.indexOf('+') < 0 && topic.indexOf('#') < 0 && topic.indexOf('\u0000') < 0;
    }

    static List<StringPair> userProperties(final MqttProperties properties) {
        final List<StringPair> pairs = new ArrayList<>();
        for (MqttProperty<?> p : properties.getProperties(MqttProperties.USER_PROPERTY)) {
            if (p instanceof UserProperty up) {
                pairs.add(up.value());
            } else if (p instanceof UserProperties ups) {
                pairs.addAll(ups.value());
            }
        }
        return pairs;
    }

    static String stringProperty(final MqttProperties properties, final int id) {
        final MqttProperty<?> p = properties.getProperty(id);
        return p instanceof StringProperty sp ? sp.value() : null;
    }

    static Integer intProperty(final MqttProperties properties, final int id) {
        final MqttProperty<?> p = properties.getProperty(id);
        return p instanceof IntegerProperty ip ? ip.value() : null;
    }

    private static String encodable(final String s) {
        return s != null && MessageProperties.isEncodable(s) ? s : null;
    }

    private static int parseInt(final String s, final int otherwise) {
        try {
            return s == null ? otherwise : Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static long parseLong(final String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
