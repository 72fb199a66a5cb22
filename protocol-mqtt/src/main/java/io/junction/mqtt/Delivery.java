package io.junction.mqtt;

import io.netty.handler.codec.mqtt.MqttProperties;

/**
 * One message on its way to a subscriber: queued for the in-flight window, then in flight until acknowledged.
 * {@link #onDone} runs once when it is finished with (acknowledged, written at QoS 0, or dropped), on the session's
 * executor; readers use it to move their offsets or ack POP receipts.
 *
 * <p>A QoS 2 delivery of a persistent session's own subscription carries its store {@link #position}: it is tracked in
 * the {@link Qos2Ledger}, and its PUBLISH and PUBREL go out only once the ledger has recorded them.
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
    /** Where the message is in the store, for a tracked QoS 2 delivery; else null. */
    Qos2Ledger.Position position;
    /** The packet id binding is durable: the PUBLISH may go out (always true for untracked deliveries). */
    boolean recorded = true;
    /** The PUBLISH went out at least once (a resend sets DUP). */
    boolean sent;
    /** QoS 2: PUBREC came, PUBREL sent (or about to be), waiting for PUBCOMP. */
    boolean released;
    /** The release is durable: the PUBREL may go out. */
    boolean releaseRecorded;
    /**
     * In flight at a restart and read again: queued to go out again (DUP, its packet id) in its place among the
     * deliveries read with it, as it was first sent (4.6), not ahead of them.
     */
    boolean resend;

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

    /**
     * A QoS 2 delivery read back from the ledger at start: its packet id and position, not yet its message (the
     * session's reader brings that again; until then only its PUBREL can be resent).
     */
    static Delivery placeholder(final int packetId, final Qos2Ledger.Position position, final boolean released) {
        final Delivery d = new Delivery(null, null, 2, false, null, 0, null);
        d.packetId = packetId;
        d.position = position;
        d.sent = true;
        d.released = released;
        d.releaseRecorded = released;
        return d;
    }

    /** This delivery with its message, taking over a placeholder's packet id and state. */
    Delivery takeOver(final Delivery placeholder) {
        packetId = placeholder.packetId;
        position = placeholder.position;
        recorded = true;
        sent = true;
        released = placeholder.released;
        releaseRecorded = placeholder.releaseRecorded;
        return this;
    }

    boolean isPlaceholder() {
        return payload == null;
    }

    void done() {
        if (onDone != null) {
            onDone.run();
        }
    }
}
