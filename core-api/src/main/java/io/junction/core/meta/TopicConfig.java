package io.junction.core.meta;

import java.util.Map;
import java.util.Objects;

/**
 * A topic's configuration.
 *
 * @param queueCount  number of queues (read and write queues are the same here)
 * @param permissions RocketMQ permission bits: {@link #PERM_READ} | {@link #PERM_WRITE}
 * @param attributes  free-form attributes (RocketMQ 5 topic attributes, e.g. {@code message.type})
 */
public record TopicConfig(String name, int queueCount, TopicType type, int permissions,
                          Map<String, String> attributes) {
    public static final int PERM_WRITE = 0x2;
    public static final int PERM_READ = 0x4;
    public static final int PERM_READ_WRITE = PERM_READ | PERM_WRITE;
    /** The most queues a topic may have. */
    public static final int MAX_QUEUES = 1024;
    /**
     * The attribute that makes a topic compacted when it is {@value #COMPACT}: retention keeps the latest message of
     * each key (see {@link #compacted()}). Kafka's topic config of the same name sets it.
     */
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String COMPACT = "compact";
    /**
     * The attribute a proxy over several store groups puts on a topic's route once the topic was scaled in: queues
     * from this number on are closed (read only: their messages stay readable, writes go to the open ones), as
     * RocketMQ's {@code writeQueueNums} below {@code readQueueNums}. Absent: every queue takes writes.
     */
    public static final String WRITE_QUEUES = "junction.write-queues";

    public TopicConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (queueCount < 1 || queueCount > MAX_QUEUES) {
            throw new IllegalArgumentException("queue count " + queueCount + " not in 1.." + MAX_QUEUES);
        }
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }

    public static TopicConfig of(final String name, final int queueCount) {
        return new TopicConfig(name, queueCount, TopicType.NORMAL, PERM_READ_WRITE, Map.of());
    }

    /** How many queues (from 0) take writes: {@link #WRITE_QUEUES} when set and smaller, else every queue. */
    public int writeQueueCount() {
        final String v = attributes.get(WRITE_QUEUES);
        if (v == null) {
            return queueCount;
        }
        try {
            return Math.max(1, Math.min(queueCount, Integer.parseInt(v.trim())));
        } catch (NumberFormatException e) {
            return queueCount;
        }
    }

    public boolean writable() {
        return (permissions & PERM_WRITE) != 0;
    }

    public boolean readable() {
        return (permissions & PERM_READ) != 0;
    }

    /**
     * Whether retention keeps the latest message of each key (message group, else keys) instead of dropping whole
     * segments blindly: {@code cleanup.policy} holds {@code compact} (Kafka's {@code compact,delete} too).
     */
    public boolean compacted() {
        final String policy = attributes.get(CLEANUP_POLICY);
        if (policy == null) {
            return false;
        }
        for (String p : policy.split(",")) {
            if (COMPACT.equals(p.trim())) {
                return true;
            }
        }
        return false;
    }
}
