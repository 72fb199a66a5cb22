package io.junction.mqtt;

import java.util.HashMap;
import java.util.Map;

/**
 * The topic aliases a connection assigned towards its client (MQTT 5, 3.3.2.3.4): first come, first aliased, at most
 * the client's Topic Alias Maximum, never reassigned (an alias lives as long as the network connection).
 */
final class OutboundAliases {
    private final Map<String, Integer> aliases = new HashMap<>();
    private final int maximum;

    OutboundAliases(final int maximum) {
        this.maximum = maximum;
    }

    /**
     * The alias to send a topic under: positive and new (send the topic name with it), negative when the client
     * already knows it (send an empty topic name), 0 when there is none (no aliases, or all in use).
     */
    int aliasOf(final String topic) {
        final Integer known = aliases.get(topic);
        if (known != null) {
            return -known;
        }
        if (aliases.size() >= maximum) {
            return 0;
        }
        final int alias = aliases.size() + 1;
        aliases.put(topic, alias);
        return alias;
    }
}
