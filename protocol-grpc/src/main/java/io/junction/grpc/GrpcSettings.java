package io.junction.grpc;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import java.util.List;

/**
 * The front-end's settings, read once at start.
 *
 * @param maxBodySize             largest body accepted (MESSAGE_BODY_TOO_LARGE beyond), also told to producers
 * @param validateMessageType     refuse messages whose type the topic does not accept (RocketMQ 5 behaviour)
 * @param autoCreateTopics        QueryRoute of an unknown topic creates it (MIXED type) instead of TOPIC_NOT_FOUND
 * @param autoCreateQueues        queues of such a topic
 * @param receiveBatchSize        receive batch size told to consumers
 * @param longPollingMillis       long-polling timeout told to consumers, and the longest a receive waits
 * @param pushInvisibleMillis     invisible time of messages received with auto-renew (push consumers)
 * @param transactionRecoverySecs first check-back of a half message after this many seconds (0 = the core's interval)
 * @param maxDelayMillis          farthest delivery time accepted (ILLEGAL_DELIVERY_TIME beyond)
 */
record GrpcSettings(int maxBodySize, boolean validateMessageType, boolean autoCreateTopics, int autoCreateQueues,
                    int receiveBatchSize, long longPollingMillis, long pushInvisibleMillis,
                    int transactionRecoverySecs, long maxDelayMillis) {

    static final String NAME = "grpc";

    static final ConfigKey MAX_BODY_SIZE = ConfigKey.of(NAME + ".max-body-size", ValueKind.INT_SIZE, "4m",
            "Largest message body a gRPC producer may send (MESSAGE_BODY_TOO_LARGE beyond); told to producers.");
    static final ConfigKey VALIDATE_MESSAGE_TYPE = ConfigKey.of(NAME + ".validate-message-type", ValueKind.BOOLEAN,
            "true", "Refuse gRPC messages whose type (normal, FIFO, delay, transaction) the topic does not accept.");
    static final ConfigKey AUTO_CREATE_TOPICS = ConfigKey.of(NAME + ".auto-create-topics", ValueKind.BOOLEAN, "true",
            "A route query for an unknown topic creates it (type MIXED); false answers TOPIC_NOT_FOUND.");
    static final ConfigKey AUTO_CREATE_QUEUES = ConfigKey.of(NAME + ".auto-create-queues", ValueKind.INT, "4",
            "Queues of a topic created by a gRPC route query.");
    static final ConfigKey RECEIVE_BATCH_SIZE = ConfigKey.of(NAME + ".receive-batch-size", ValueKind.INT, "32",
            "Receive batch size told to gRPC consumers.");
    // Short on purpose: a 5.x PushConsumer's shutdown waits for its parked receive to come back (nothing tells the
    // server it is closing), so this is also how long closing an idle push consumer takes.
    static final ConfigKey LONG_POLLING_MS = ConfigKey.of(NAME + ".long-polling-timeout-ms", ValueKind.INT, "5000",
            "Long-polling timeout told to gRPC push consumers (closing an idle one waits this long at most), "
                    + "and the wait of a receive that names none.");
    static final ConfigKey PUSH_INVISIBLE_MS = ConfigKey.of(NAME + ".push-invisible-ms", ValueKind.INT, "60000",
            "Invisible time of messages a push consumer (auto-renew) receives; the server renews it while the "
                    + "consumer is connected and has not acked (3 h at most).");
    static final ConfigKey TRANSACTION_RECOVERY_SECONDS = ConfigKey.of(NAME + ".transaction-recovery-seconds",
            ValueKind.INT, "0", "First check-back of a gRPC half message after this many seconds (0: the store's).");
    static final ConfigKey MAX_DELAY_HOURS = ConfigKey.of(NAME + ".max-delay-hours", ValueKind.INT, "24",
            "Farthest delivery time a gRPC producer may ask for (ILLEGAL_DELIVERY_TIME beyond).");

    static final ConfigKey TLS = ConfigKey.choice(NAME + ".tls", "PERMISSIVE",
            "TLS on the gRPC port: PERMISSIVE (TLS and plaintext on the same port, detected per connection), "
                    + "REQUIRED (TLS only) or DISABLED (plaintext only).", "PERMISSIVE", "REQUIRED", "DISABLED");
    static final ConfigKey TLS_CERT_FILE = ConfigKey.of(NAME + ".tls-cert-file", ValueKind.STRING, "",
            "PEM certificate chain for gRPC TLS; when unset, a self-signed certificate made at first start and kept "
                    + "in <data-dir>/tls/ is used.");
    static final ConfigKey TLS_KEY_FILE = ConfigKey.of(NAME + ".tls-key-file", ValueKind.STRING, "",
            "PEM (PKCS#8) private key matching grpc.tls-cert-file.");

    static List<ConfigKey> keys() {
        return List.of(TLS, TLS_CERT_FILE, TLS_KEY_FILE, MAX_BODY_SIZE, VALIDATE_MESSAGE_TYPE, AUTO_CREATE_TOPICS, AUTO_CREATE_QUEUES,
                RECEIVE_BATCH_SIZE, LONG_POLLING_MS, PUSH_INVISIBLE_MS, TRANSACTION_RECOVERY_SECONDS,
                MAX_DELAY_HOURS);
    }

    static GrpcSettings from(final FrontEndConfig config) {
        return new GrpcSettings(
                (int) Math.min(Integer.MAX_VALUE, config.size("max-body-size")),
                config.bool("validate-message-type"),
                config.bool("auto-create-topics"),
                Math.max(1, config.intValue("auto-create-queues")),
                Math.max(1, config.intValue("receive-batch-size")),
                Math.max(1000, config.intValue("long-polling-timeout-ms")),
                Math.max(10_000, config.intValue("push-invisible-ms")),
                Math.max(0, config.intValue("transaction-recovery-seconds")),
                Math.max(1, config.intValue("max-delay-hours")) * 3_600_000L);
    }

    /** Defaults, for tests. */
    static GrpcSettings defaults() {
        return new GrpcSettings(4 * 1024 * 1024, true, true, 8, 32, 5_000, 60_000, 0, 86_400_000L);
    }
}
