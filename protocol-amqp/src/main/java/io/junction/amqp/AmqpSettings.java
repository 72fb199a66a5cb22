package io.junction.amqp;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import io.junction.spi.tls.ServerTls;
import java.util.ArrayList;
import java.util.List;

/**
 * The front-end's settings, read once at start.
 *
 * @param maxFrameSize       largest frame we accept, told to clients in OPEN (at least 512, the AMQP minimum)
 * @param channelMax         highest channel number a client may begin a session on
 * @param idleTimeoutMs      a connection silent for this long is closed (clients are told half of it); 0 disables
 * @param saslTimeoutMs      a connection must finish the SASL and AMQP opening within this time
 * @param linkCredit         credit granted to a producer link; topped up as sends are stored
 * @param maxMessageSize     largest encoded message accepted (all sections)
 * @param maxTransactionBytes bodies one transaction may buffer before its commit
 * @param invisibleMs        how long a message delivered to a consumer link stays taken without a settlement before
 *                           the core hands it out again
 * @param longPollMs         how long a consumer link's read waits at the end of its queues
 * @param topicQueues        queues of a core topic created by an AMQP link
 * @param maxDeliveries      deliveries of a message (the first included) before modified/rejected ones go to the
 *                           dead-letter topic
 */
record AmqpSettings(int maxFrameSize, int channelMax, int idleTimeoutMs, int saslTimeoutMs, int linkCredit,
                    long maxMessageSize, long maxTransactionBytes, long invisibleMs, long longPollMs, int topicQueues, int maxDeliveries) {

    static final ConfigKey MAX_FRAME_SIZE = ConfigKey.of("amqp.max-frame-size", ValueKind.INT_SIZE, "1m",
            "Largest AMQP frame accepted (told to clients in OPEN); a larger frame closes the connection with "
                    + "amqp:connection:framing-error.");
    static final ConfigKey CHANNEL_MAX = ConfigKey.of("amqp.channel-max", ValueKind.INT, "255",
            "Highest AMQP channel (session) number a client may use.");
    static final ConfigKey IDLE_TIMEOUT_MS = ConfigKey.of("amqp.idle-timeout-ms", ValueKind.INT, "60000",
            "An AMQP connection that sends nothing for this many milliseconds is closed (clients are told half of "
                    + "it, so they send heartbeats in time); 0 disables.");
    static final ConfigKey SASL_TIMEOUT_MS = ConfigKey.of("amqp.open-timeout-ms", ValueKind.INT, "10000",
            "A new AMQP connection must complete SASL and OPEN within this many milliseconds or it is closed.");
    static final ConfigKey LINK_CREDIT = ConfigKey.of("amqp.link-credit", ValueKind.INT, "1000",
            "Credit given to each producer link; topped up as its messages are stored.");
    static final ConfigKey MAX_MESSAGE_SIZE = ConfigKey.of("amqp.max-message-size", ValueKind.SIZE, "8m",
            "Largest encoded AMQP message accepted, all sections included (more: the link closes with "
                    + "amqp:link:message-size-exceeded); the store's body limit applies as well.");
    static final ConfigKey MAX_TRANSACTION_SIZE = ConfigKey.of("amqp.max-transaction-size", ValueKind.SIZE, "64m",
            "Message bytes one AMQP transaction may hold until it is committed (more: amqp:resource-limit-exceeded).");
    static final ConfigKey DELIVERY_TIMEOUT_MS = ConfigKey.of("amqp.delivery-timeout-ms", ValueKind.INT, "600000",
            "A message delivered unsettled to a consumer that neither settles it nor goes away within this many "
                    + "milliseconds is handed out again.");
    static final ConfigKey TOPIC_QUEUES = ConfigKey.of("amqp.topic-queues", ValueKind.INT, "4",
            "Queues of a core topic created by an AMQP link attach.");
    static final ConfigKey MAX_DELIVERIES = ConfigKey.of("amqp.max-delivery-attempts", ValueKind.INT, "10",
            "Deliveries of a message to a consumer group before a failed one (modified with delivery-failed) goes "
                    + "to the group's dead-letter topic; applies to groups the AMQP front-end creates.");

    static List<ConfigKey> keys() {
        final List<ConfigKey> keys = new ArrayList<>(List.of(MAX_FRAME_SIZE, CHANNEL_MAX, IDLE_TIMEOUT_MS,
                SASL_TIMEOUT_MS, LINK_CREDIT, MAX_MESSAGE_SIZE, MAX_TRANSACTION_SIZE, DELIVERY_TIMEOUT_MS, TOPIC_QUEUES,
                MAX_DELIVERIES));
        keys.addAll(ServerTls.keys("amqp", 5671)); // the TLS listener's keys, as every front-end has them
        return keys;
    }

    static AmqpSettings from(final FrontEndConfig config) {
        return new AmqpSettings(Math.max(512, (int) config.size("max-frame-size")),
                Math.max(0, Math.min(65535, config.intValue("channel-max"))),
                config.intValue("idle-timeout-ms"), Math.max(100, config.intValue("open-timeout-ms")),
                Math.max(1, config.intValue("link-credit")), config.size("max-message-size"),
                config.size("max-transaction-size"),
                Math.max(1000, config.intValue("delivery-timeout-ms")), 20_000,
                Math.max(1, Math.min(64, config.intValue("topic-queues"))),
                Math.max(1, config.intValue("max-delivery-attempts")));
    }
}
