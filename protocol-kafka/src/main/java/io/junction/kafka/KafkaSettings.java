package io.junction.kafka;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import io.junction.spi.tls.ServerTls;
import java.util.ArrayList;
import java.util.List;

/**
 * The front-end's settings, read once at start.
 *
 * @param maxRequestSize     largest request frame accepted; a larger one closes the connection
 * @param maxPendingRequests requests of one connection in progress at once; past it the connection is not read until
 *                           one is answered
 * @param maxFetchBytes      most record bytes one Fetch response carries, whatever the client asks for
 * @param autoCreateTopics   whether Metadata requests that allow it create unknown topics
 * @param topicPartitions    partitions (core queues) of an auto-created topic
 * @param nodeId             the broker id clients see in Metadata
 * @param initialRebalanceDelayMs how long a group coming out of EMPTY waits for more members before its first
 *                           generation
 * @param maxTransactionBytes record bytes one open transaction may hold until it commits
 */
record KafkaSettings(int maxRequestSize, int maxPendingRequests, int maxFetchBytes, boolean autoCreateTopics,
                     int topicPartitions, int nodeId, int initialRebalanceDelayMs, long maxTransactionBytes) {

    static final ConfigKey MAX_REQUEST_SIZE = ConfigKey.of("kafka.max-request-size", ValueKind.INT_SIZE, "16m",
            "Largest Kafka request accepted (Kafka's socket.request.max.bytes); a larger one closes the connection.");
    static final ConfigKey MAX_PENDING_REQUESTS = ConfigKey.of("kafka.max-pending-requests", ValueKind.INT, "16",
            "Requests of one Kafka connection in progress at once; past it the connection is not read until one is "
                    + "answered.");
    static final ConfigKey MAX_FETCH_BYTES = ConfigKey.of("kafka.max-fetch-bytes", ValueKind.INT_SIZE, "8m",
            "Most record bytes one Fetch response carries, whatever the consumer's fetch.max.bytes (at least one "
                    + "record is always returned).");
    static final ConfigKey AUTO_CREATE_TOPICS = ConfigKey.of("kafka.auto-create-topics", ValueKind.BOOLEAN, "true",
            "Create an unknown topic when a Kafka client's Metadata request allows it (Kafka's "
                    + "auto.create.topics.enable).");
    static final ConfigKey TOPIC_PARTITIONS = ConfigKey.of("kafka.topic-partitions", ValueKind.INT, "1",
            "Partitions (core queues) of a topic created by a Kafka Metadata request (Kafka's num.partitions).");

    static final ConfigKey INITIAL_REBALANCE_DELAY_MS = ConfigKey.of("kafka.group-initial-rebalance-delay-ms",
            ValueKind.INT, "3000", "Milliseconds a consumer group with no members waits for more to join before its "
                    + "first rebalance completes, extended by each newcomer up to the rebalance timeout (Kafka's "
                    + "group.initial.rebalance.delay.ms).");

    static final ConfigKey MAX_TRANSACTION_BYTES = ConfigKey.of("kafka.max-transaction-bytes", ValueKind.INT_SIZE,
            "64m", "Record bytes one Kafka transaction may hold in memory until it commits; past it the transaction "
                    + "must abort (TRANSACTION_ABORTABLE).");

    /** The one broker id this node reports. */
    static final int NODE_ID = 0;

    static List<ConfigKey> keys() {
        final List<ConfigKey> keys = new ArrayList<>(List.of(MAX_REQUEST_SIZE, MAX_PENDING_REQUESTS, MAX_FETCH_BYTES,
                AUTO_CREATE_TOPICS, TOPIC_PARTITIONS, INITIAL_REBALANCE_DELAY_MS, MAX_TRANSACTION_BYTES));
        keys.addAll(ServerTls.keys("kafka", 9093));
        return keys;
    }

    static KafkaSettings from(final FrontEndConfig config) {
        return new KafkaSettings((int) config.size("max-request-size"),
                Math.max(1, config.intValue("max-pending-requests")),
                (int) Math.max(1024, config.size("max-fetch-bytes")), config.bool("auto-create-topics"),
                Math.max(1, Math.min(1024, config.intValue("topic-partitions"))), NODE_ID,
                Math.max(0, config.intValue("group-initial-rebalance-delay-ms")),
                Math.max(1024, config.size("max-transaction-bytes")));
    }
}
