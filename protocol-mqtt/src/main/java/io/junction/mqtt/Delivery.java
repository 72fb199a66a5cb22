package io.junction.mqtt;

import io.netty.handler.codec.mqtt.MqttProperties;

/**
 * One message on its way to a subscriber: queued for the in-flight window, then in flight until acknowledged.
 * {@link #onDone} runs once when it is finished with (acknowledged, written at QoS 0, or dropped), on the session's
 * executor; readers use it to move their offsets or ack POP receipts.
 */
final class Delivery {
    final String topic;
    final byte[] payload;
    final int qos;
    final boolean retain;
    final MqttProperties properties;
    final long expiresAt;
    final Runnable onDone;
    int packetId;
    /** QoS 2: PUBREC came, PUBREL sent, waiting for PUBCOMP. */
    boolean released;
    boolean sent;

    Delivery(final String topic, final byte[] payload, final int qos, final boolean retain,
             final MqttProperties properties, final long expiresAt, final Runnable onDone) {
        this.topic = topic;
        this.payload = payload;
        this.qos = qos;
        this.retain = retain;
        this.properties = properties;
        this.expiresAt = expiresAt;
        this.onDone = onDone;
    }

    void done() {
        if (onDone != null) {
            onDone.run();
        }
    }
}
