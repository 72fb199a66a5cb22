package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.spi.CoreNames;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The group coordinator of this node: every consumer group's membership ({@link ConsumerGroup}, in memory), and
 * committed offsets, kept durably by the core under the group's core name ({@link Messaging#commitOffset}).
 *
 * <p>A Kafka group id maps to the core group {@code CoreNames.escape(groupId)}, so a RocketMQ tool shows the same
 * committed offsets. Commit metadata strings are not kept (fetched as empty). A task every 100 ms expires members
 * whose session timed out and completes rebalances whose time has come.
 */
final class GroupCoordinator implements AutoCloseable {
    static final int MIN_SESSION_TIMEOUT_MS = 1_000;
    static final int MAX_SESSION_TIMEOUT_MS = 30 * 60_000;

    private final Messaging messaging;
    private final long initialDelayMs;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, ConsumerGroup> groups = new ConcurrentHashMap<>();
    private final ScheduledExecutorService ticker;

    GroupCoordinator(final Messaging messaging, final long initialDelayMs, final LongSupplier clock) {
        this.messaging = messaging;
        this.initialDelayMs = initialDelayMs;
        this.clock = clock;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "kafka-group-coordinator");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleWithFixedDelay(this::tick, 100, 100, TimeUnit.MILLISECONDS);
    }

    /** Whether a group id can name a core group. */
    static boolean isValidGroupId(final String groupId) {
        return groupId != null && !groupId.isEmpty() && coreGroup(groupId).length() <= 255;
    }

    /** The core group holding a Kafka group's offsets. */
    static String coreGroup(final String groupId) {
        return CoreNames.escape(groupId);
    }

    /** The group of core name {@code coreGroup} ({@link ClientScope#group}), Kafka id {@code groupId}. */
    ConsumerGroup group(final String coreGroup, final String groupId) {
        return groups.computeIfAbsent(coreGroup, id -> new ConsumerGroup(groupId, initialDelayMs));
    }

    /** The group of core name {@code coreGroup} if it has been used since start. */
    ConsumerGroup existing(final String coreGroup) {
        return groups.get(coreGroup);
    }

    /** The groups used since start, by core name. */
    Map<String, ConsumerGroup> groups() {
        return groups;
    }

    long now() {
        return clock.getAsLong();
    }

    /** Commits an offset of core group {@code coreGroup} in core topic {@code topic}. */
    void commit(final String coreGroup, final String topic, final int partition, final long offset) {
        messaging.commitOffset(coreGroup, topic, partition, offset);
    }

    long committed(final String coreGroup, final String topic, final int partition) {
        return messaging.queryOffset(coreGroup, topic, partition);
    }

    private void tick() {
        final long now = clock.getAsLong();
        for (ConsumerGroup g : groups.values()) {
            g.tick(now);
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
