package io.junction.mqtt;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import io.junction.spi.tls.ServerTls;
import java.util.ArrayList;
import java.util.List;

/**
 * The front-end's settings, read once at start.
 *
 * @param maxPacketSize     largest packet accepted (the decoder's cap; MQTT 5 clients are told it in CONNACK)
 * @param connectTimeoutMs  a connection must send CONNECT within this time or it is closed
 * @param receiveMaximum    unacknowledged QoS 1/2 publishes a client may send us at once (MQTT 5 Receive Maximum)
 * @param maxInflight       unacknowledged QoS 1/2 deliveries per session when the client sets no lower limit
 * @param longPollMs        how long a session's pull waits at the end of a queue
 * @param topicAliasMaximum topic aliases a client may use towards us (0 disables)
 * @param topicQueues       queues of a core topic the MQTT front-end creates (first publish to a new first level)
 * @param compactionCheckMs how often the retained-message and session logs are checked for compaction
 * @param serverKeepAlive   keep alive (seconds) imposed on MQTT 5 clients in CONNACK, 0 to accept the client's own
 * @param denied            filters nobody may subscribe to
 */
record MqttSettings(int maxPacketSize, int connectTimeoutMs, int receiveMaximum, int maxInflight, long longPollMs,
                    int topicAliasMaximum, int topicQueues, long compactionCheckMs, int serverKeepAlive,
                    SubscriptionDenyList denied) {

    static final ConfigKey MAX_PACKET_SIZE = ConfigKey.of("mqtt.max-packet-size", ValueKind.INT_SIZE, "1m",
            "Largest MQTT packet accepted; larger ones close the connection (MQTT 5: DISCONNECT 0x95).");
    static final ConfigKey CONNECT_TIMEOUT_MS = ConfigKey.of("mqtt.connect-timeout-ms", ValueKind.INT, "10000",
            "A new MQTT connection that sends no CONNECT within this many milliseconds is closed.");
    static final ConfigKey RECEIVE_MAXIMUM = ConfigKey.of("mqtt.receive-maximum", ValueKind.INT, "1024",
            "Unacknowledged QoS 1/2 publishes a client may have outstanding towards the broker.");
    static final ConfigKey MAX_INFLIGHT = ConfigKey.of("mqtt.max-inflight", ValueKind.INT, "2048",
            "Unacknowledged QoS 1/2 deliveries per MQTT session (lowered by the client's Receive Maximum; "
                    + "at most 4 MiB of payload).");
    static final ConfigKey TOPIC_ALIAS_MAXIMUM = ConfigKey.of("mqtt.topic-alias-maximum", ValueKind.INT, "64",
            "Topic aliases an MQTT 5 client may use when publishing (0 disables them).");

    static final ConfigKey COMPACTION_CHECK_MS = ConfigKey.of("mqtt.compaction-check-ms", ValueKind.INT, "60000",
            "How often the retained-message and session logs are checked for compaction (milliseconds).");

    static final ConfigKey TOPIC_QUEUES = ConfigKey.of("mqtt.topic-queues", ValueKind.INT, "4",
            "Queues of a core topic created by an MQTT publish to a new first topic level.");

    static final ConfigKey SERVER_KEEP_ALIVE = ConfigKey.of("mqtt.server-keep-alive", ValueKind.INT, "0",
            "Keep alive in seconds (at most 65535) that MQTT 5 clients are told in CONNACK (Server Keep Alive) and "
                    + "held to, whatever they asked for; 0 keeps each client's own. MQTT 3.1.1 clients keep theirs.");

    static final ConfigKey DENY_SUBSCRIPTIONS = ConfigKey.checked("mqtt.deny-subscriptions", "",
            "Comma-separated topic filters nobody may subscribe to (SUBACK 0x87, 3.1.1: 0x80): an entry refuses "
                    + "itself and every narrower filter (`$SYS/#`); `=F` refuses exactly F (`=#`).",
            SubscriptionDenyList::parse);

    static List<ConfigKey> keys() {
        final List<ConfigKey> keys = new ArrayList<>(List.of(MAX_PACKET_SIZE, CONNECT_TIMEOUT_MS, RECEIVE_MAXIMUM,
                MAX_INFLIGHT, TOPIC_ALIAS_MAXIMUM, TOPIC_QUEUES, COMPACTION_CHECK_MS, SERVER_KEEP_ALIVE,
                DENY_SUBSCRIPTIONS));
        keys.addAll(ServerTls.keys("mqtt", 8883));
        return keys;
    }

    static MqttSettings from(final FrontEndConfig config) {
        return new MqttSettings((int) config.size("max-packet-size"), config.intValue("connect-timeout-ms"),
                Math.max(1, Math.min(65535, config.intValue("receive-maximum"))),
                Math.max(1, Math.min(65535, config.intValue("max-inflight"))), 20_000,
                Math.max(0, Math.min(65535, config.intValue("topic-alias-maximum"))),
                Math.max(1, Math.min(64, config.intValue("topic-queues"))),
                Math.max(10, config.intValue("compaction-check-ms")),
                Math.min(65535, config.intValue("server-keep-alive")),
                SubscriptionDenyList.parse(config.string("deny-subscriptions")));
    }
}
