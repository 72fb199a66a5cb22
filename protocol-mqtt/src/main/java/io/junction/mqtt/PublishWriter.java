package io.junction.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;

/**
 * Writes the PUBLISH packets of one drain of a session to its connection, encoded by {@link PublishEncoder} into
 * shared buffers of up to {@link #CHUNK} bytes (one write each) rather than one buffer and one write per packet. Used
 * on the session's executor for the length of one drain; {@link #finish()} writes what is left (the caller flushes).
 */
final class PublishWriter {
    /** Bytes gathered before a buffer is written and the next one started. */
    static final int CHUNK = 16 * 1024;

    private final MqttConnection conn;
    private ByteBuf buffer;

    PublishWriter(final MqttConnection conn) {
        this.conn = conn;
    }

    /**
     * Writes the delivery's PUBLISH (with DUP when {@code dup} and QoS &gt; 0).
     *
     * @param more deliveries likely to follow in this drain, to size the first buffer
     */
    void write(final Delivery d, final boolean dup, final int more) {
        final int alias = conn.isV5() ? conn.outboundAlias(d.topic) : 0;
        final String topic = alias < 0 ? "" : d.topic; // negative: the client knows the alias already
        final int estimate = 16 + 3 * d.topic.length() + d.payload.length
                + (d.properties.isEmpty() ? 0 : 512);
        if (buffer != null && buffer.writableBytes() < estimate) {
            writeBuffer();
        }
        if (buffer == null) {
            buffer = conn.channel().alloc().buffer(Math.max(estimate,
                    (int) Math.min(CHUNK, (long) estimate * (1 + Math.max(0, more)))));
        }
        final boolean sendDup = dup && d.qos > 0;
        if (!PublishEncoder.encode(buffer, conn.isV5(), topic, d.qos, sendDup, d.retain, d.packetId, d.properties,
                Math.abs(alias), d.payload)) {
            writeBuffer(); // keeps the order: what was gathered goes first
            conn.write(nettyPublish(d, topic, sendDup, Math.abs(alias)));
        } else if (buffer.readableBytes() >= CHUNK) {
            writeBuffer();
        }
    }

    /** Writes what is gathered; the caller flushes the connection. */
    void finish() {
        writeBuffer();
    }

    private void writeBuffer() {
        final ByteBuf b = buffer;
        buffer = null;
        if (b == null) {
            return;
        }
        if (b.isReadable()) {
            conn.write(b);
        } else {
            b.release();
        }
    }

    /** The packet for Netty's encoder: a delivery whose properties {@link PublishEncoder} does not write. */
    private static MqttPublishMessage nettyPublish(final Delivery d, final String topic, final boolean dup,
                                                   final int alias) {
        MqttProperties props = d.properties;
        if (alias > 0) {
            // A copy: the delivery may be resent on a later connection with its own aliases.
            props = new MqttProperties();
            for (MqttProperties.MqttProperty<?> p : d.properties.listAll()) {
                props.add(p);
            }
            props.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS, alias));
        }
        return new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, dup, MqttQoS.valueOf(d.qos),
                d.retain, 0), new MqttPublishVariableHeader(topic, d.qos > 0 ? d.packetId : -1, props),
                Unpooled.wrappedBuffer(d.payload));
    }
}
