package io.junction.mqtt;

import io.junction.core.message.StoredMessage;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Stored messages lately mapped for delivery on this thread (a session's event loop), so the subscribers of one
 * topic on the same loop share one mapping (properties, payload copy) of a message the store read once for all of
 * them, instead of each building its own.
 *
 * <p>Shared mappings are never changed: a delivery that adds properties (subscription identifiers, a topic alias)
 * adds them to a copy. A message with an expiry is mapped afresh each time, since the interval it carries is what is
 * left of it now.
 */
final class OutboundMappings {
    private static final int SLOTS = 64;

    private record Entry(StoredMessage message, String topic, MqttMessageMapping.Outbound mapped) {
    }

    private static final FastThreadLocal<Entry[]> RECENT = new FastThreadLocal<>() {
        @Override
        protected Entry[] initialValue() {
            return new Entry[SLOTS];
        }
    };

    private OutboundMappings() {
    }

    /** {@code m} mapped for delivery; {@code coreTopic} names the MQTT topic of messages without one. */
    static MqttMessageMapping.Outbound of(final String coreTopic, final StoredMessage m, final long now) {
        final Entry[] recent = RECENT.get();
        final int slot = (int) (m.commitLogOffset() ^ m.commitLogOffset() >>> 7) & SLOTS - 1;
        final Entry e = recent[slot];
        if (e != null && e.message == m && e.topic.equals(coreTopic)) {
            return e.mapped;
        }
        final MqttMessageMapping.Outbound mapped = MqttMessageMapping.fromCore(coreTopic, m.properties(),
                m.bodyBytes(), now);
        if (mapped.expiresAt() == 0) { // never shared when it expires: mapped anew for the interval left then
            recent[slot] = new Entry(m, coreTopic, mapped);
        }
        return mapped;
    }
}
