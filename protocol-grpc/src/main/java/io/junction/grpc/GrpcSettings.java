package io.junction.grpc;

import io.junction.core.meta.TopicConfig;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.InvalidValueException;
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
 * @param maxDelayMillis          farthest delivery time accepted (ILLEGAL_DELIVERY_TIME beyond)
 * @param minInvisibleMillis      shortest invisible duration a receive may ask for (ILLEGAL_INVISIBLE_TIME below)
 * @param maxInvisibleMillis      longest invisible duration a receive or ChangeInvisibleDuration may ask for
 */
record GrpcSettings(int maxBodySize, boolean validateMessageType, boolean autoCreateTopics, int autoCreateQueues,
                    int receiveBatchSize, long longPollingMillis, long pushInvisibleMillis, long maxDelayMillis,
                    long minInvisibleMillis, long maxInvisibleMillis) {

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
    static final ConfigKey MAX_DELAY_HOURS = ConfigKey.of(NAME + ".max-delay-hours", ValueKind.INT, "24",
            "Farthest delivery time a gRPC producer may ask for (ILLEGAL_DELIVERY_TIME beyond).");

    /** The shortest invisible duration grpc.min-invisible-ms may allow. */
    static final int LOWEST_MIN_INVISIBLE_MS = 1000;
    // RocketMQ's proxy bounds: minInvisibleTimeMillsForRecv (10 s), maxInvisibleTimeMills (12 h).
    static final ConfigKey MIN_INVISIBLE_MS = ConfigKey.of(NAME + ".min-invisible-ms", ValueKind.INT, "10000",
            "Shortest invisible duration a gRPC receive may ask for (ILLEGAL_INVISIBLE_TIME below); at least "
                    + LOWEST_MIN_INVISIBLE_MS + ".");
    static final ConfigKey MAX_INVISIBLE_MS = ConfigKey.of(NAME + ".max-invisible-ms", ValueKind.INT, "43200000",
            "Longest invisible duration a gRPC receive or ChangeInvisibleDuration may ask for (ILLEGAL_INVISIBLE_TIME "
                    + "beyond); at least grpc.min-invisible-ms.");

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
                RECEIVE_BATCH_SIZE, LONG_POLLING_MS, PUSH_INVISIBLE_MS, MAX_DELAY_HOURS, MIN_INVISIBLE_MS,
                MAX_INVISIBLE_MS);
    }

    /**
     * @throws InvalidValueException when the invisible-duration bounds are out of range or do not fit together (the
     *                               broker then stops with its configuration error)
     */
    static GrpcSettings from(final FrontEndConfig config) {
        final int minInvisible = config.intValue("min-invisible-ms");
        final int maxInvisible = config.intValue("max-invisible-ms");
        if (minInvisible < LOWEST_MIN_INVISIBLE_MS) {
            throw new InvalidValueException("invalid value for " + MIN_INVISIBLE_MS.name() + ": '" + minInvisible
                    + "' is not at least " + LOWEST_MIN_INVISIBLE_MS + " (milliseconds)");
        }
        if (maxInvisible < minInvisible) {
            throw new InvalidValueException("invalid value for " + MAX_INVISIBLE_MS.name() + ": '" + maxInvisible
                    + "' is below " + MIN_INVISIBLE_MS.name() + " (" + minInvisible + ")");
        }
        return new GrpcSettings(
                (int) Math.min(Integer.MAX_VALUE, config.size("max-body-size")),
                config.bool("validate-message-type"),
                config.bool("auto-create-topics"),
                Math.max(1, Math.min(TopicConfig.MAX_QUEUES, config.intValue("auto-create-queues"))),
                Math.max(1, config.intValue("receive-batch-size")),
                Math.max(1000, config.intValue("long-polling-timeout-ms")),
                Math.max(10_000, config.intValue("push-invisible-ms")),
                Math.max(1, config.intValue("max-delay-hours")) * 3_600_000L,
                minInvisible,
                maxInvisible);
    }

    /** Defaults, for tests. */
    static GrpcSettings defaults() {
        return new GrpcSettings(4 * 1024 * 1024, true, true, 8, 32, 5_000, 60_000, 86_400_000L, 10_000,
                43_200_000L);
    }
}
