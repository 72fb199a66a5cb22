package io.junction.mqtt;

import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Packets a client sent behind its CONNECT while the CONNECT was being authenticated: held (retained, at most
 * {@link #MAX}, so a client cannot fill memory while its credentials are checked) and replayed once it is decided.
 */
final class EarlyPackets {
    static final int MAX = 32;
    private final List<MqttMessage> held = new ArrayList<>();

    /** Holds (retains) a packet; false when {@link #MAX} are held already (the caller closes the connection). */
    boolean hold(final MqttMessage m) {
        if (held.size() >= MAX) {
            return false;
        }
        held.add(ReferenceCountUtil.retain(m));
        return true;
    }

    /** The held packets, in arrival order, handed over with their references; none are held any more. */
    List<MqttMessage> takeAll() {
        final List<MqttMessage> taken = new ArrayList<>(held);
        held.clear();
        return taken;
    }

    /** Releases what is held (the connection closed). */
    void release() {
        held.forEach(ReferenceCountUtil::release);
        held.clear();
    }
}
