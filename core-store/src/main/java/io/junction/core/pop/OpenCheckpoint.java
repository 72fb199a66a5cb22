package io.junction.core.pop;

import java.util.BitSet;

/**
 * A popped batch of one queue still in flight: which of its messages are done (acked, moved on by a visibility
 * change, or revived) and when the rest become visible again.
 */
final class OpenCheckpoint {
    /** Tracked in place ({@link TrackedQueue}): FIFO and in-place groups. */
    final boolean inPlace;
    final long id;
    final long deadline;
    final String group;
    final String topic;
    final int queueId;
    final long[] offsets;
    final int[] reconsumeTimes;
    /** Revive queue holding the checkpoint record, and its offset there (bounds the replay after a restart). */
    final int reviveQueue;
    final long reviveOffset;
    private final BitSet done;
    private int open;
    /** After a failed revive, when the next attempt is due (in memory only: a restart retries at once). */
    volatile long retryAt;

    OpenCheckpoint(final boolean inPlace, final long id, final long deadline, final String group, final String topic,
                   final int queueId, final long[] offsets, final int[] reconsumeTimes, final int reviveQueue,
                   final long reviveOffset) {
        this.inPlace = inPlace;
        this.id = id;
        this.deadline = deadline;
        this.group = group;
        this.topic = topic;
        this.queueId = queueId;
        this.offsets = offsets;
        this.reconsumeTimes = reconsumeTimes;
        this.reviveQueue = reviveQueue;
        this.reviveOffset = reviveOffset;
        this.done = new BitSet(offsets.length);
        this.open = offsets.length;
    }

    synchronized boolean isOpen(final int index) {
        return index >= 0 && index < offsets.length && !done.get(index);
    }

    /** Marks one message done; false when it already was. */
    synchronized boolean finish(final int index) {
        if (!isOpen(index)) {
            return false;
        }
        done.set(index);
        open--;
        return true;
    }

    synchronized boolean allDone() {
        return open == 0;
    }
}
