package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.spi.kit.TopicProvisioner;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Kafka topic names and the core topics behind them.
 *
 * <p>A Kafka topic name ({@code [a-zA-Z0-9._-]}, at most 249 characters, never {@code .} or {@code ..}) is a valid core
 * name as it is, so topic {@code orders} is core topic {@code orders} for every protocol. Core topics whose names Kafka
 * cannot spell (escaped MQTT levels, store and front-end internals) are not listed to Kafka clients.
 */
final class KafkaTopics {
    static final int MAX_NAME_LENGTH = 249;
    /**
     * The core group whose committed offsets are the partitions' log start offsets moved by DeleteRecords (no Kafka
     * group maps to it: {@code %} is escaped in group names).
     */
    static final String LOG_START_GROUP = "%KAFKA%LOG-START";
    /**
     * Topic attributes holding Kafka topic configs are named {@code kafka.<config>}, except {@code cleanup.policy},
     * which is the core's own attribute ({@link TopicConfig#CLEANUP_POLICY}: compacted topics).
     */
    static final String CONFIG_ATTRIBUTE_PREFIX = "kafka.";

    /** The topic attribute holding a Kafka topic config. */
    static String attributeOf(final String config) {
        return TopicConfig.CLEANUP_POLICY.equals(config) ? config : CONFIG_ATTRIBUTE_PREFIX + config;
    }

    /** The Kafka topic config a topic attribute holds, or null when it holds none. */
    static String configOf(final String attribute) {
        if (TopicConfig.CLEANUP_POLICY.equals(attribute)) {
            return attribute;
        }
        return attribute.startsWith(CONFIG_ATTRIBUTE_PREFIX) ? attribute.substring(CONFIG_ATTRIBUTE_PREFIX.length())
                : null;
    }

    private final Messaging messaging;
    private final TopicProvisioner provisioner;

    KafkaTopics(final Messaging messaging, final KafkaSettings settings) {
        this.messaging = messaging;
        this.provisioner = new TopicProvisioner(messaging, new TopicProvisioner.Policy(settings.autoCreateTopics(),
                settings.topicPartitions(), TopicType.NORMAL));
    }

    /** Kafka's own rule for topic names. */
    static boolean isLegal(final String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH || name.equals(".")
                || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Whether a core topic is shown to Kafka clients listing all topics. */
    static boolean isVisible(final String core) {
        return isLegal(core) && !core.toLowerCase(Locale.ROOT).startsWith("rmq_sys_")
                && !core.equals("TBW102") && !core.equals("SCHEDULE_TOPIC_XXXX");
    }

    /**
     * Every core topic; a client sees those of its namespace whose names Kafka can spell
     * ({@link ClientScope#kafkaName}).
     */
    List<TopicConfig> list() {
        return List.copyOf(messaging.topics().list());
    }

    /**
     * The first offset Kafka clients may read: the queue's smallest readable offset, or further on where DeleteRecords
     * moved it (the records before it stay for other protocols until retention removes them).
     */
    long logStartOffset(final String topic, final int partition) {
        return Math.max(messaging.minOffset(topic, partition),
                messaging.queryOffset(LOG_START_GROUP, topic, partition));
    }

    /** Moves a partition's log start offset (DeleteRecords); never backwards, never past the end. */
    long deleteRecordsBefore(final String topic, final int partition, final long offset) {
        final long start = Math.max(logStartOffset(topic, partition),
                Math.min(offset, messaging.maxOffset(topic, partition)));
        messaging.commitOffset(LOG_START_GROUP, topic, partition, start);
        return start;
    }

    /** The topic as it is now. */
    Optional<TopicConfig> get(final String name) {
        return messaging.route(name);
    }

    /**
     * The topic, created with {@code kafka.topic-partitions} partitions when unknown, {@code create} allows it and
     * {@code kafka.auto-create-topics} is on (the kit's rule: a system topic's name fails with ILLEGAL_ARGUMENT).
     */
    CompletableFuture<Optional<TopicConfig>> getOrCreate(final String name, final boolean create) {
        return provisioner.find(name, create);
    }
}
