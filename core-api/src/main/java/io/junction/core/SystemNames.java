package io.junction.core;

import java.util.List;

/**
 * The names of the topics the core keeps for itself, as RocketMQ names them, so every front-end, the store and the
 * tools agree on them: a consumer group's retry and dead-letter topics, and the transaction topics. Clients may read a
 * group's retry and dead-letter topics; nobody but the store writes the transaction topics. Also the key-value
 * namespaces the core keeps in step with topics.
 */
public final class SystemNames {
    public static final String RETRY_PREFIX = "%RETRY%";
    public static final String DLQ_PREFIX = "%DLQ%";
    /** Half messages of open transactions (one queue). */
    public static final String HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    /** Op records of transactions: resolutions and check-backs (one queue). */
    public static final String OP_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
    /**
     * Messages the store itself produced (a due timer, a committed half message) for a queue that was sealed
     * meanwhile (one queue). Each keeps its real topic and physical queue in {@code REAL_TOPIC} and {@code REAL_QID};
     * a proxy over several store groups carries it to the live segment of the logical queue that physical queue
     * belongs to. Nobody but the store writes it.
     */
    public static final String SEALED_FORWARD_TOPIC = "rmq_sys_junction_sealed_forward";
    /**
     * The pseudo-group whose committed offset in a dead-letter topic (queue 0) is how far the group's dead letters were
     * re-driven: what lies below it went back to its topic, what lies from it on still waits.
     */
    public static final String REDRIVE_GROUP = "CID_JUNCTION_REDRIVE_GROUP";
    /** Key-value namespace of RocketMQ static topics' queue mappings, key = topic (see {@link #TOPIC_SCOPED_KV}). */
    public static final String STATIC_TOPICS_NAMESPACE = "junction.static-topics";
    /**
     * Key-value namespaces whose items are keyed by a topic's name and belong to it: deleting the topic, by whatever
     * path (any protocol's delete, the admin API), deletes its item in each, so a topic made again under the name
     * starts without it.
     */
    public static final List<String> TOPIC_SCOPED_KV = List.of(STATIC_TOPICS_NAMESPACE);

    private SystemNames() {
    }

    /** A group's retry topic as RocketMQ 4 clients name it (one for all the group's topics). */
    public static String retryTopic(final String group) {
        return RETRY_PREFIX + group;
    }

    /** The retry topic of a POP group for one topic (RocketMQ's V1 name). */
    public static String retryTopic(final String group, final String topic) {
        return RETRY_PREFIX + group + "_" + topic;
    }

    /** The dead-letter topic of a group. */
    public static String deadLetterTopic(final String group) {
        return DLQ_PREFIX + group;
    }

    /** True for a retry or dead-letter topic. */
    public static boolean isRetryOrDeadLetter(final String topic) {
        return topic.startsWith(RETRY_PREFIX) || topic.startsWith(DLQ_PREFIX);
    }

    /** True for the store's own transaction topics. */
    public static boolean isTransactionTopic(final String topic) {
        return HALF_TOPIC.equals(topic) || OP_TOPIC.equals(topic);
    }
}
