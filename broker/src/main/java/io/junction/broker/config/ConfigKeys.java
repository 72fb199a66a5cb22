package io.junction.broker.config;

import static io.junction.spi.config.ValueKind.BOOLEAN;
import static io.junction.spi.config.ValueKind.INT;
import static io.junction.spi.config.ValueKind.INT_SIZE;
import static io.junction.spi.config.ValueKind.PORT;
import static io.junction.spi.config.ValueKind.RATIO;
import static io.junction.spi.config.ValueKind.STRING;

import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.tls.ServerTls;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every configuration key the broker knows, with its default and meaning. The README's configuration table mirrors
 * this list (a test checks that it names every key); {@code --help} prints it.
 */
public final class ConfigKeys {

    public static final ConfigKey DATA_DIR = ConfigKey.of("data.dir", STRING, "data",
            "Directory of all store files; relative paths start at the working directory (same as --data-dir).");

    public static final ConfigKey BROKER_HOST = ConfigKey.of("broker.host", STRING, "127.0.0.1",
            "Host advertised to clients: in routes, offset message ids and the ready line.");
    public static final ConfigKey BIND_ADDRESS = ConfigKey.of("broker.bind-address", STRING, "0.0.0.0",
            "Local address every listener binds to; 127.0.0.1 keeps the broker private to this machine.");
    public static final ConfigKey IO_THREADS = ConfigKey.of("broker.io-threads", INT, "0",
            "Netty I/O threads shared by all listeners; 0 means one per core, at most 4.");

    public static final ConfigKey SEGMENT_SIZE = ConfigKey.of("store.segment-size", INT_SIZE, "1g",
            "Commit-log segment file size (mapped sparsely).");
    public static final ConfigKey MAPPED_WINDOW = ConfigKey.of("store.mapped-window", INT_SIZE, "128m",
            "Most of the commit log mapped at once (regions least recently read are unmapped), so the most of it "
                    + "resident in the broker; at least 1m.");
    public static final ConfigKey FLUSH_MODE = ConfigKey.choice("store.flush-mode", "ASYNC",
            "ASYNC: a send is acknowledged once in the page cache and forced within the flush interval; "
                    + "SYNC: acknowledged after an fsync covering it (group commit).", "ASYNC", "SYNC");
    public static final ConfigKey FLUSH_INTERVAL_MS = ConfigKey.of("store.flush-interval-ms", INT, "500",
            "ASYNC: longest time, in milliseconds, a written message stays unforced.");
    public static final ConfigKey FLUSH_THRESHOLD = ConfigKey.of("store.flush-threshold", INT_SIZE, "64k",
            "ASYNC: force early once this many bytes are unforced.");
    public static final ConfigKey MAX_MESSAGE_SIZE = ConfigKey.of("store.max-message-size", INT_SIZE, "4m",
            "Largest message body accepted; at most half the segment size.");
    public static final ConfigKey AUTO_CREATE_TOPICS = ConfigKey.of("store.auto-create-topics", BOOLEAN, "true",
            "Create an unknown topic on its first send.");
    public static final ConfigKey AUTO_CREATE_GROUPS = ConfigKey.of("store.auto-create-groups", BOOLEAN, "true",
            "Create an unknown consumer group on its first use.");
    public static final ConfigKey DEFAULT_QUEUE_COUNT = ConfigKey.of("store.default-queue-count", INT, "4",
            "Queues of an auto-created topic (RocketMQ's default).");
    public static final ConfigKey RETENTION_HOURS = ConfigKey.of("store.retention-hours", INT, "72",
            "Commit-log segments older than this are deleted.");
    public static final ConfigKey MAX_DELAY_HOURS = ConfigKey.of("store.max-delay-hours", INT, "24",
            "Longest delivery delay a delayed (timer) message may ask for; keep it below the retention.");
    public static final ConfigKey DISK_MAX_USED_RATIO = ConfigKey.of("store.disk-max-used-ratio", RATIO, "0.75",
            "Above this share of the disk used, the oldest segments are deleted early.");
    public static final ConfigKey DISK_FULL_RATIO = ConfigKey.of("store.disk-full-ratio", RATIO, "0.90",
            "Above this share of the disk used, sends are refused.");
    public static final ConfigKey TRANSACTION_FIRST_CHECK_MS = ConfigKey.of("store.transaction-first-check-ms", INT,
            "6000", "First check-back of an unresolved transaction (half message) this many milliseconds after it "
                    + "was stored, at least 100 (RocketMQ's transactionTimeOut); a delay the message sets itself "
                    + "(CHECK_IMMUNITY_TIME_IN_SECONDS) comes first.");
    public static final ConfigKey TRANSACTION_CHECK_INTERVAL_MS = ConfigKey.of("store.transaction-check-interval-ms",
            INT, "30000", "Milliseconds between later check-backs of a still unresolved transaction, at least 100 "
                    + "(RocketMQ's transactionCheckInterval).");
    public static final ConfigKey TRANSACTION_MAX_CHECKS = ConfigKey.of("store.transaction-max-checks", INT, "15",
            "Check-backs of an unresolved transaction; when one more would be due, the half message is rolled back "
                    + "instead, never delivered (RocketMQ's transactionCheckMax, after which it discards it).");
    public static final ConfigKey POP_REVIVE_INTERVAL_MS = ConfigKey.of("store.pop-revive-interval-ms", INT, "100",
            "How often, in milliseconds (10 to 60000), received messages not acked within their invisible time are "
                    + "looked for and made deliverable again (RocketMQ's reviveInterval).");
    public static final ConfigKey QUEUE_FILE_ENTRIES = ConfigKey.of("store.queue-file-entries", INT, "300000",
            "Entries per consume-queue file.");
    public static final ConfigKey INDEX_FILE_ENTRIES = ConfigKey.of("store.index-file-entries", INT, "2000000",
            "Entries per index file (keys and message ids).");

    public static final ConfigKey CLUSTER_NODE_ID = ConfigKey.of("cluster.node-id", STRING, "",
            "This node's id among cluster.members; empty runs a single node (no replication).");
    public static final ConfigKey CLUSTER_MEMBERS = ConfigKey.of("cluster.members", STRING, "",
            "Every replica of the store group as id@host:port (its Raft replication address), comma-separated, "
                    + "e.g. n1@10.0.0.1:9870,n2@10.0.0.2:9870,n3@10.0.0.3:9870; the same list on every node.");
    public static final ConfigKey CLUSTER_ELECTION_TIMEOUT_MS = ConfigKey.of("cluster.election-timeout-ms", INT,
            "1000", "Milliseconds without the leader's heartbeat before a follower stands for election (randomized "
                    + "up to twice that); a leader cut off from a majority for twice that steps down.");
    public static final ConfigKey CLUSTER_ROLE = ConfigKey.of("cluster.role", STRING, "all",
            "What this node runs: all (front-ends and, with cluster.node-id, a replica), store (a replica without "
                    + "client listeners or console) or proxy (front-ends only over a store group reached through "
                    + "cluster.store-contracts; no replica, no data).");
    public static final ConfigKey CLUSTER_STORE_CONTRACTS = ConfigKey.of("cluster.store-contracts", STRING, "",
            "A proxy's way in: the store nodes' contract servers (their cluster.contract-port on their "
                    + "cluster.members host) as host:port, comma-separated; one reachable suffices, the proxy learns "
                    + "the others and follows the leader. The one-group form of cluster.store-groups (a group named g1).");
    public static final ConfigKey CLUSTER_STORE_GROUPS = ConfigKey.of("cluster.store-groups", STRING, "",
            "A proxy over several store groups: name=host:port,host:port;name=host:port,... (names [a-z0-9-]+, each "
                    + "group's store nodes' contract servers). The first is the metadata group (topics, consumer "
                    + "groups, offsets, users, key-value configs, queue placements); a topic created through the proxy "
                    + "gets its queues placed round robin over the groups, once. Instead of cluster.store-contracts.");
    public static final ConfigKey CLUSTER_CONTRACT_PORT = ConfigKey.of("cluster.contract-port", PORT, "0",
            "Port of this node's contract server on its cluster.members host: followers forward sends, POP, acks and "
                    + "offset commits to the leader's (0 picks a free port; each node publishes its own to the others).");

    public static final ConfigKey CLUSTER_SNAPSHOT_INTERVAL_ENTRIES = ConfigKey.of(
            "cluster.snapshot-interval-entries", INT, "1024", "Raft entries applied between two snapshots (at least "
                    + "1); after each, the Raft log is purged up to it. See \"A bounded Raft log\".");
    public static final ConfigKey CLUSTER_LOG_KEEP_ENTRIES = ConfigKey.of("cluster.log-keep-entries", INT, "256",
            "Raft entries kept below the latest snapshot when the log is purged, so a follower just behind catches "
                    + "up from the log rather than from the leader's snapshot.");
    public static final ConfigKey CLUSTER_LOG_SEGMENT_SIZE = ConfigKey.of("cluster.log-segment-size", INT_SIZE, "64m",
            "Size of a Raft log segment file, at least 16k; the log is purged by whole closed segments.");

    /** Prefix of the shared HTTP listener's keys, TLS ones included ({@code http.tls-enabled}, …). */
    public static final String HTTP_PREFIX = "http";
    public static final ConfigKey HTTP_PORT = ConfigKey.of("http.port", PORT, "8080",
            "Shared HTTP listener: /health, /metrics, CloudEvents, MQTT over WebSocket (0 picks a free port).");
    public static final ConfigKey HTTP_MAX_REQUEST_SIZE = ConfigKey.of("http.max-request-size", INT_SIZE, "8m",
            "Largest HTTP request body accepted; larger requests get 413.");
    public static final ConfigKey HTTP_READ_TIMEOUT_MS = ConfigKey.of("http.read-timeout-ms", INT, "30000",
            "An HTTP connection must deliver a complete request within this many milliseconds of opening or of "
                    + "its previous response, or it is closed (slow or idle clients); 0 disables the timeout.");

    public static final ConfigKey SECURITY_ENABLED = ConfigKey.of("security.enabled", BOOLEAN, "false",
            "Authentication, ACL and namespaces on every protocol; off, everyone is anonymous in the default "
                    + "namespace and may do anything.");
    public static final ConfigKey SECURITY_SECRET_KEY = ConfigKey.of("security.secret-key", STRING, "",
            "Key (any text) sealing the users' signing secrets at rest; required when security is on, and "
                    + "the same key must be given at every start.");
    public static final ConfigKey SECURITY_ADMIN_USER = ConfigKey.of("security.admin-user", STRING, "admin",
            "Super user created at start when security.admin-password is set and no such user exists.");
    public static final ConfigKey SECURITY_ADMIN_PASSWORD = ConfigKey.of("security.admin-password", STRING, "",
            "Password (and signing secret) of the bootstrap super user; empty creates none.");
    public static final ConfigKey SECURITY_MAX_FAILURES = ConfigKey.of("security.max-failures", INT, "5",
            "Failed authentications from one client host within security.failure-window-ms after which its "
                    + "attempts are refused unchecked until the window ends.");
    public static final ConfigKey SECURITY_FAILURE_WINDOW_MS = ConfigKey.of("security.failure-window-ms", INT,
            "60000", "Window of the failed-authentication throttle, in milliseconds.");
    public static final ConfigKey SECURITY_TOKEN_TTL_HOURS = ConfigKey.of("security.token-ttl-hours", INT, "720",
            "Lifetime of a bearer token issued without one of its own (ttlSeconds); 0: tokens last until revoked.");
    public static final ConfigKey SECURITY_MAX_SKEW_SECONDS = ConfigKey.of("security.max-skew-seconds", INT, "900",
            "How far the time a gRPC client signed a request may be from the broker's clock.");

    public static final ConfigKey OTEL_ENDPOINT = ConfigKey.of("otel.endpoint", STRING, "",
            "OpenTelemetry collector's OTLP/HTTP base URL (e.g. http://collector:4318): metrics are pushed to "
                    + "<endpoint>/v1/metrics, spans to <endpoint>/v1/traces; empty pushes nothing.");
    public static final ConfigKey OTEL_METRICS_INTERVAL_MS = ConfigKey.of("otel.metrics-interval-ms", INT, "60000",
            "Milliseconds between two OTLP metric pushes.");
    public static final ConfigKey OTEL_TRACES_ENABLED = ConfigKey.of("otel.traces-enabled", BOOLEAN, "true",
            "With otel.endpoint set, record send/store/deliver/ack spans of messages and export them to "
                    + "<endpoint>/v1/traces; false pushes metrics only.");
    public static final ConfigKey OTEL_TRACES_EXPORT_DELAY_MS = ConfigKey.of("otel.traces-export-delay-ms", INT,
            "5000", "Longest time, in milliseconds, a recorded span waits to be exported in a batch.");
    public static final ConfigKey OTEL_SERVICE_NAME = ConfigKey.of("otel.service-name", STRING, "junction",
            "The service.name resource attribute of what is pushed over OTLP.");
    public static final ConfigKey METRICS_ENABLED = ConfigKey.of("metrics.enabled", BOOLEAN, "true",
            "Count every front-end's traffic under RocketMQ's metric names (rocketmq_*); false leaves the message core "
                    + "unwrapped: no rocketmq_* traffic meters, spans or broker-written message trace (to measure "
                    + "their cost).");
    public static final ConfigKey TRACE_TOPICS = ConfigKey.of("trace.topics", STRING, "",
            "Comma-separated topics whose message trace the broker writes to RMQ_SYS_TRACE_TOPIC, besides those "
                    + "with the topic attribute trace.enabled=true.");
    public static final ConfigKey METRICS_MAX_TOPICS = ConfigKey.of("metrics.max-topics", INT, "1000",
            "Distinct topics the rocketmq_* metrics label; traffic of further topics is counted under "
                    + "topic=\"_other_\".");
    public static final ConfigKey METRICS_MAX_GROUPS = ConfigKey.of("metrics.max-groups", INT, "1000",
            "Distinct consumer groups the rocketmq_* metrics label; further groups are counted under "
                    + "consumer_group=\"_other_\".");
    public static final ConfigKey METRICS_MAX_LAG_SERIES = ConfigKey.of("metrics.max-lag-series", INT, "1000",
            "(consumer group, topic) pairs whose lag gauges are computed per run, at most.");
    public static final ConfigKey METRICS_LAG_INTERVAL_MS = ConfigKey.of("metrics.lag-interval-ms", INT, "10000",
            "Milliseconds between two computations of the consumer lag, in-flight and ready gauges (off the "
                    + "event loops; a scrape shows the last one).");

    /** The front-ends the project ships, with their default ports; each can be switched off. */
    public static final Map<String, String> STANDARD_FRONT_ENDS = standardFrontEnds();

    private static final List<ConfigKey> BROKER_KEYS = brokerKeys();

    private ConfigKeys() {
    }

    /** The broker's own keys, including {@code enabled}/{@code port} of the standard front-ends. */
    public static List<ConfigKey> broker() {
        return BROKER_KEYS;
    }

    /**
     * The broker's keys plus those of the discovered front-ends: {@code <name>.enabled} for a front-end the table
     * does not know, and whatever each front-end declares. The broker's own entry wins over a front-end's
     * declaration of the same key.
     *
     * @throws IllegalStateException if a front-end declares a key outside its own prefix
     */
    public static List<ConfigKey> withFrontEnds(final Collection<ProtocolFrontEnd> frontEnds) {
        final Map<String, ConfigKey> all = new LinkedHashMap<>();
        BROKER_KEYS.forEach(k -> all.put(k.name(), k));
        for (final ProtocolFrontEnd frontEnd : frontEnds) {
            final String name = frontEnd.name();
            all.putIfAbsent(name + ".enabled", enabledKey(name));
            for (final ConfigKey key : frontEnd.configKeys()) {
                if (!key.name().startsWith(name + ".")) {
                    throw new IllegalStateException("front-end " + name + " declares the key " + key.name()
                            + " outside its prefix " + name + ".");
                }
                all.putIfAbsent(key.name(), key);
            }
        }
        return List.copyOf(all.values());
    }

    private static ConfigKey enabledKey(final String frontEnd) {
        return ConfigKey.of(frontEnd + ".enabled", BOOLEAN, "true",
                "Start the " + frontEnd + " front-end (when its module is on the classpath).");
    }

    private static Map<String, String> standardFrontEnds() {
        final Map<String, String> ports = new LinkedHashMap<>();
        ports.put("remoting", "9876");
        ports.put("grpc", "8081");
        ports.put("mqtt", "1883");
        ports.put("amqp", "5672");
        ports.put("kafka", "9092");
        ports.put("http-cloudevents", ""); // routes on the shared HTTP listener, no port of its own
        return Collections.unmodifiableMap(ports);
    }

    private static List<ConfigKey> brokerKeys() {
        final List<ConfigKey> keys = new ArrayList<>(List.of(DATA_DIR, BROKER_HOST, BIND_ADDRESS, IO_THREADS,
                SEGMENT_SIZE, MAPPED_WINDOW, FLUSH_MODE, FLUSH_INTERVAL_MS, FLUSH_THRESHOLD, MAX_MESSAGE_SIZE,
                AUTO_CREATE_TOPICS, AUTO_CREATE_GROUPS, DEFAULT_QUEUE_COUNT, RETENTION_HOURS, MAX_DELAY_HOURS,
                DISK_MAX_USED_RATIO, DISK_FULL_RATIO, TRANSACTION_FIRST_CHECK_MS, TRANSACTION_CHECK_INTERVAL_MS,
                TRANSACTION_MAX_CHECKS, POP_REVIVE_INTERVAL_MS, QUEUE_FILE_ENTRIES, INDEX_FILE_ENTRIES,
                CLUSTER_NODE_ID, CLUSTER_MEMBERS, CLUSTER_ELECTION_TIMEOUT_MS, CLUSTER_CONTRACT_PORT, CLUSTER_ROLE,
                CLUSTER_STORE_CONTRACTS, CLUSTER_STORE_GROUPS, CLUSTER_SNAPSHOT_INTERVAL_ENTRIES, CLUSTER_LOG_KEEP_ENTRIES,
                CLUSTER_LOG_SEGMENT_SIZE, HTTP_PORT, HTTP_MAX_REQUEST_SIZE, HTTP_READ_TIMEOUT_MS, SECURITY_ENABLED,
                SECURITY_SECRET_KEY, SECURITY_ADMIN_USER,
                SECURITY_ADMIN_PASSWORD, SECURITY_MAX_FAILURES, SECURITY_FAILURE_WINDOW_MS,
                SECURITY_MAX_SKEW_SECONDS, SECURITY_TOKEN_TTL_HOURS, OTEL_ENDPOINT, OTEL_METRICS_INTERVAL_MS,
                OTEL_TRACES_ENABLED,
                OTEL_TRACES_EXPORT_DELAY_MS, OTEL_SERVICE_NAME,
                METRICS_ENABLED, TRACE_TOPICS, METRICS_MAX_TOPICS, METRICS_MAX_GROUPS, METRICS_MAX_LAG_SERIES, METRICS_LAG_INTERVAL_MS));
        keys.addAll(ServerTls.keys(HTTP_PREFIX, 8443));
        STANDARD_FRONT_ENDS.forEach((name, port) -> {
            keys.add(enabledKey(name));
            if (!port.isEmpty()) {
                keys.add(ConfigKey.of(name + ".port", PORT, port, "Port of the " + name + " front-end."));
            }
        });
        return List.copyOf(keys);
    }
}
