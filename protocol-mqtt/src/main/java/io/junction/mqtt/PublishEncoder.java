package io.junction.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.mqtt.MqttProperties;
import java.util.Collection;
import java.util.List;

/**
 * Encodes outbound PUBLISH packets straight into a buffer that a drain shares among all the packets it writes.
 *
 * <p>Netty's {@code MqttEncoder} turns every PUBLISH into a pooled buffer of its own (MQTT 5: two more for the
 * properties) and every buffer into an entry of the channel's outbound buffer; at a hundred thousand deliveries a
 * second those allocations and their recycling across threads were about a fifth of a fan-in profile's samples.
 * Here a drain appends its packets to one buffer, written once. The bytes are those of MQTT 3.1.1 section 3.3 and
 * MQTT 5.0 section 3.3; acknowledgements and the other packets still go through Netty's encoder.
 */
final class PublishEncoder {
    private PublishEncoder() {
    }

    /**
     * Appends one PUBLISH to {@code out}, or returns false without writing when {@code properties} holds a property
     * a PUBLISH does not carry (the caller then hands the packet to Netty's encoder).
     *
     * @param topicAlias a topic alias to send (MQTT 5; 0 for none); with it {@code topic} may be empty
     * @param packetId   the packet identifier, ignored at QoS 0
     */
    static boolean encode(final ByteBuf out, final boolean v5, final String topic, final int qos, final boolean dup,
                          final boolean retain, final int packetId, final MqttProperties properties,
                          final int topicAlias, final byte[] payload) {
        final Collection<? extends MqttProperties.MqttProperty<?>> all = v5 ? all(properties) : List.of();
        final int propertiesLength = v5 ? propertiesLength(all, topicAlias) : 0;
        if (propertiesLength < 0) {
            return false;
        }
        final int topicLength = ByteBufUtil.utf8Bytes(topic);
        final int remaining = 2 + topicLength + (qos > 0 ? 2 : 0)
                + (v5 ? varIntSize(propertiesLength) + propertiesLength : 0) + payload.length;
        out.ensureWritable(1 + varIntSize(remaining) + remaining);
        out.writeByte(0x30 | (dup ? 0x08 : 0) | qos << 1 | (retain ? 0x01 : 0));
        writeVarInt(out, remaining);
        out.writeShort(topicLength);
        ByteBufUtil.reserveAndWriteUtf8(out, topic, topicLength);
        if (qos > 0) {
            out.writeShort(packetId);
        }
        if (v5) {
            writeVarInt(out, propertiesLength);
            writeProperties(out, all, topicAlias);
        }
        out.writeBytes(payload);
        return true;
    }

    /** The encoded length of the properties, or -1 when one of them does not belong in a PUBLISH. */
    private static int propertiesLength(final Collection<? extends MqttProperties.MqttProperty<?>> properties,
                                        final int topicAlias) {
        int length = topicAlias > 0 ? 3 : 0;
        for (MqttProperties.MqttProperty<?> p : properties) {
            switch (p.propertyId()) {
                case MqttProperties.PAYLOAD_FORMAT_INDICATOR -> length += 2;
                case MqttProperties.PUBLICATION_EXPIRY_INTERVAL -> length += 5;
                case MqttProperties.SUBSCRIPTION_IDENTIFIER ->
                        length += 1 + varIntSize(((MqttProperties.IntegerProperty) p).value());
                case MqttProperties.CONTENT_TYPE, MqttProperties.RESPONSE_TOPIC ->
                        length += 3 + ByteBufUtil.utf8Bytes(((MqttProperties.StringProperty) p).value());
                case MqttProperties.CORRELATION_DATA ->
                        length += 3 + ((MqttProperties.BinaryProperty) p).value().length;
                case MqttProperties.USER_PROPERTY -> {
                    for (MqttProperties.StringPair pair : pairs(p)) {
                        length += 5 + ByteBufUtil.utf8Bytes(pair.key) + ByteBufUtil.utf8Bytes(pair.value);
                    }
                }
                default -> {
                    return -1;
                }
            }
        }
        return length;
    }

    private static void writeProperties(final ByteBuf out,
                                        final Collection<? extends MqttProperties.MqttProperty<?>> properties,
                                        final int topicAlias) {
        if (topicAlias > 0) {
            out.writeByte(MqttProperties.TOPIC_ALIAS);
            out.writeShort(topicAlias);
        }
        for (MqttProperties.MqttProperty<?> p : properties) {
            final int id = p.propertyId();
            switch (id) {
                case MqttProperties.PAYLOAD_FORMAT_INDICATOR -> {
                    out.writeByte(id);
                    out.writeByte(((MqttProperties.IntegerProperty) p).value());
                }
                case MqttProperties.PUBLICATION_EXPIRY_INTERVAL -> {
                    out.writeByte(id);
                    out.writeInt(((MqttProperties.IntegerProperty) p).value());
                }
                case MqttProperties.SUBSCRIPTION_IDENTIFIER -> {
                    out.writeByte(id);
                    writeVarInt(out, ((MqttProperties.IntegerProperty) p).value());
                }
                case MqttProperties.CONTENT_TYPE, MqttProperties.RESPONSE_TOPIC -> {
                    out.writeByte(id);
                    writeString(out, ((MqttProperties.StringProperty) p).value());
                }
                case MqttProperties.CORRELATION_DATA -> {
                    final byte[] data = ((MqttProperties.BinaryProperty) p).value();
                    out.writeByte(id);
                    out.writeShort(data.length);
                    out.writeBytes(data);
                }
                case MqttProperties.USER_PROPERTY -> {
                    for (MqttProperties.StringPair pair : pairs(p)) {
                        out.writeByte(id);
                        writeString(out, pair.key);
                        writeString(out, pair.value);
                    }
                }
                default -> throw new IllegalStateException("property " + id + " passed the length check");
            }
        }
    }

    /** The properties, listed once per packet ({@code listAll} builds a list when there are user properties). */
    private static Collection<? extends MqttProperties.MqttProperty<?>> all(final MqttProperties properties) {
        @SuppressWarnings("unchecked")
        final Collection<? extends MqttProperties.MqttProperty<?>> all =
                (Collection<? extends MqttProperties.MqttProperty<?>>) properties.listAll();
        return all;
    }

    /** The pairs of a user property: {@code listAll} gathers them into one, a lone one may stand by itself. */
    private static List<MqttProperties.StringPair> pairs(final MqttProperties.MqttProperty<?> p) {
        if (p instanceof MqttProperties.UserProperties all) {
            return all.value();
        }
        return List.of(((MqttProperties.UserProperty) p).value());
    }

    private static void writeString(final ByteBuf out, final String s) {
        final int length = ByteBufUtil.utf8Bytes(s);
        out.writeShort(length);
        ByteBufUtil.reserveAndWriteUtf8(out, s, length);
    }

    private static int varIntSize(final int value) {
        return value < 128 ? 1 : value < 16_384 ? 2 : value < 2_097_152 ? 3 : 4;
    }

    private static void writeVarInt(final ByteBuf out, final int value) {
        int v = value;
        do {
            int digit = v & 0x7F;
            v >>>= 7;
            if (v > 0) {
                digit |= 0x80;
            }
            out.writeByte(digit);
        } while (v > 0);
    }
}
