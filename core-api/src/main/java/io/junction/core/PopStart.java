package io.junction.core;

/**
 * Where POP starts on a queue for a group that has never consumed from it (no committed offset there), RocketMQ's
 * {@code ConsumeInitMode}. The start is recorded as the group's offset on the first pop, so it stays put across
 * restarts. A retry topic always starts at its oldest message.
 */
public enum PopStart {
    /** At the queue's oldest retained message (RocketMQ's {@code MIN}): everything still stored is delivered. */
    OLDEST,
    /**
     * RocketMQ's {@code MAX}, what its gRPC proxy and its 5.x POP push consumer (unless it consumes from the first
     * offset) ask: at 0 while the queue still holds its first message, so a recently created group gets what was sent
     * before it first asked; on a queue whose first messages retention removed, at its last message (the one before
     * the end), so an established topic's new group does not replay its history.
     */
    LATEST;

    /** The first offset for a queue whose smallest readable offset is {@code min} and next offset {@code max}. */
    public long offset(final long min, final long max) {
        if (this == OLDEST || min <= 0) {
            return min;
        }
        return Math.max(min, max - 1);
    }
}
