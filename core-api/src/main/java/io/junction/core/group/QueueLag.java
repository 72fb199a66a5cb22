package io.junction.core.group;

/**
 * How far a group is behind on one queue.
 *
 * @param committedOffset   the group's committed offset (-1 when none)
 * @param maxOffset         the queue's end
 * @param lag               messages not consumed yet
 * @param lastStoreTime     store time of the newest message (-1 when empty)
 * @param lastConsumedTime  store time of the last message the group consumed, the one before its committed offset
 *                          (-1 when it consumed none, or that message is gone)
 */
public record QueueLag(int queueId, long committedOffset, long maxOffset, long lag, long lastStoreTime,
                       long lastConsumedTime) {
}
