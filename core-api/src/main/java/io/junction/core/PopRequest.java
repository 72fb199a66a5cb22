package io.junction.core;

import io.junction.core.filter.MessageFilter;
import java.util.Objects;
import java.util.Set;

/**
 * Take messages of a topic for a consumer group, across all its queues; the server balances the load (no client
 * rebalance). Each message stays invisible to the group for {@code invisibleMillis} unless acked.
 *
 * @param maxWaitMillis when nothing is there, wait up to this long for a message to arrive (0 = answer at once)
 * @param start         where the group starts on a queue it has never consumed from
 * @param heldQueues    queues of the topic this pop neither takes from nor waits on: a proxy holds a logical queue's
 *                      later segment while an earlier one, on another group, still has messages of a FIFO or in-place
 *                      group not done, so later messages never overtake earlier ones across the seam
 */
public record PopRequest(String group, String topic, MessageFilter filter, int maxMessages, long invisibleMillis,
                         long maxWaitMillis, PopStart start, Set<Integer> heldQueues) {
    /**
     * Most messages one pop returns (one checkpoint record covers them). A consumer with a deep prefetch (AMQP link
     * credit) asks this many, so each durable checkpoint, and in SYNC mode each fsync it waits for, serves as many
     * deliveries as possible.
     */
    public static final int MAX_MESSAGES = 256;
    /**
     * The batch RocketMQ's clients ask at most (its broker refuses more), and the batch of the front-ends whose
     * clients take messages a few at a time.
     */
    public static final int CLIENT_BATCH = 32;

    public PopRequest {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        filter = filter == null ? MessageFilter.ALL : filter;
        start = start == null ? PopStart.OLDEST : start;
        heldQueues = heldQueues == null ? Set.of() : Set.copyOf(heldQueues);
    }

    /** A pop over every queue of the topic. */
    public PopRequest(final String group, final String topic, final MessageFilter filter, final int maxMessages,
                      final long invisibleMillis, final long maxWaitMillis, final PopStart start) {
        this(group, topic, filter, maxMessages, invisibleMillis, maxWaitMillis, start, Set.of());
    }

    /** A pop whose group starts at the oldest retained message of a queue it has never consumed from. */
    public PopRequest(final String group, final String topic, final MessageFilter filter, final int maxMessages,
                      final long invisibleMillis, final long maxWaitMillis) {
        this(group, topic, filter, maxMessages, invisibleMillis, maxWaitMillis, PopStart.OLDEST, Set.of());
    }

    /** The same pop, taking nothing from {@code held} queues. */
    public PopRequest holding(final Set<Integer> held) {
        return new PopRequest(group, topic, filter, maxMessages, invisibleMillis, maxWaitMillis, start, held);
    }
}
