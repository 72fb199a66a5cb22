package io.junction.core.pop;

import io.junction.core.PopRequest;
import io.junction.core.PopStart;
import io.junction.core.SystemNames;
import io.junction.core.meta.GroupConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where each group's pops stand in each queue: a pop offset for normal groups, a {@link TrackedQueue} for FIFO and
 * in-place groups, each behind the queue's own lock so one message is never handed to two consumers. The pop
 * readers, the reviver, the acks, browsing and recovery all move these positions, so they live here once.
 */
final class PopQueues {
    private record QueueKey(String group, String topic, int queueId) {
    }

    /** Per-queue pop position and lock. */
    static final class State {
        final ReentrantLock lock = new ReentrantLock();
        long popOffset = -1;
        int pendingCheckpoints;
        /** Set for FIFO and in-place groups, which track each message instead of a pop offset. */
        TrackedQueue tracked;

        void withLock(final Runnable action) {
            lock.lock();
            try {
                action.run();
            } finally {
                lock.unlock();
            }
        }
    }

    private final PopStore store;
    private final Map<QueueKey, State> states = new ConcurrentHashMap<>();
    /** Messages made available again in their place (or FIFO groups moved on), counted after the change. */
    private final AtomicLong availableAgain = new AtomicLong();

    PopQueues(final PopStore store) {
        this.store = store;
    }

    /** The queue's state, made on first use. */
    State of(final String group, final String topic, final int queueId) {
        return states.computeIfAbsent(new QueueKey(group, topic, queueId), k -> new State());
    }

    /** The queue's state, or null when no pop of the group touched it since the start. */
    State find(final String group, final String topic, final int queueId) {
        return states.get(new QueueKey(group, topic, queueId));
    }

    /**
     * Where a pop of the group starts reading a queue it has no position in memory for: its committed offset (not
     * below the queue's oldest retained message), or, for a group that never consumed from the queue, the request's
     * {@link PopStart} (a retry topic: its oldest message). That first position is committed at once, as RocketMQ's
     * broker does, so a restart before the group's first ack does not move it. Called under the queue's lock.
     */
    long startOffset(final PopRequest request, final PopStore.QueueRef q) {
        final long min = store.minOffset(q.topic(), q.queueId());
        final long committed = store.committedOffset(request.group(), q.topic(), q.queueId());
        if (committed >= 0) {
            return Math.max(committed, min);
        }
        final PopStart start = q.topic().equals(SystemNames.retryTopic(request.group(), request.topic()))
                ? PopStart.OLDEST : request.start();
        final long first = start.offset(min, store.maxOffset(q.topic(), q.queueId()));
        store.commitOffset(request.group(), q.topic(), q.queueId(), first);
        return first;
    }

    /** The queue's tracker, made at the group's committed offset (and moved past messages retention removed). */
    TrackedQueue trackedQueue(final State state, final String group, final PopStore.QueueRef q) {
        final long min = store.minOffset(q.topic(), q.queueId());
        if (state.tracked == null) {
            state.tracked = new TrackedQueue(Math.max(store.committedOffset(group, q.topic(), q.queueId()), min));
        } else if (state.tracked.base() < min) {
            state.tracked.reset(min);
        }
        return state.tracked;
    }

    /**
     * A tracked message is done. In a FIFO group its message group may move on, so parked pops of the queue look
     * again; in an in-place group nothing became available.
     */
    void done(final OpenCheckpoint ck, final int index) {
        final State state = find(ck.group, ck.topic, ck.queueId);
        if (state == null) {
            return;
        }
        state.withLock(() -> {
            if (state.tracked != null && state.tracked.markDone(ck.offsets[index])) {
                store.commitOffset(ck.group, ck.topic, ck.queueId, state.tracked.base());
            }
        });
        if (store.group(ck.group).map(GroupConfig::fifo).orElse(false)) {
            availableAgain.incrementAndGet();
            store.wake(ck.topic, ck.queueId);
        }
    }

    /**
     * How many times a message became available again without an arrival (a release in place, a FIFO group moving
     * on). A pop that read before such a change and parked after it looks again: the change's wake found it not yet
     * parked, and the queue's end, which the pop also compares, did not move.
     */
    long availableAgain() {
        return availableAgain.get();
    }

    /**
     * A tracked message is available again in its place, with one more delivery counted unless it was given back
     * unconsumed ({@code counted} false); parked pops of the queue look again.
     */
    void release(final OpenCheckpoint ck, final int index, final boolean counted) {
        final State state = find(ck.group, ck.topic, ck.queueId);
        if (state != null) {
            state.withLock(() -> {
                if (state.tracked != null) {
                    state.tracked.release(ck.offsets[index], counted, ck);
                }
            });
        }
        availableAgain.incrementAndGet();
        store.wake(ck.topic, ck.queueId);
    }

    /**
     * Lowers each revive queue's replay position ({@code oldest}, by revive queue) to the closed checkpoints that
     * still carry the count of a message released in its place ({@link TrackedQueue#holdRevivePositions}).
     */
    void holdRevivePositions(final long[] oldest) {
        for (State state : states.values()) {
            state.withLock(() -> {
                if (state.tracked != null) {
                    state.tracked.holdRevivePositions(oldest);
                }
            });
        }
    }

    /** Makes the group's next pop of the queue start at {@code offset} (replay; offsets were reset). */
    void reset(final String group, final String topic, final int queueId, final long offset) {
        final State state = of(group, topic, queueId);
        state.withLock(() -> {
            state.popOffset = offset;
            if (state.tracked != null) {
                state.tracked.reset(offset);
            }
        });
    }

    /** Where the group's pops would start reading a queue ({@code state} from {@link #find}, may be null). */
    long firstNotTaken(final String group, final PopStore.QueueRef q, final State state) {
        final long start = Math.max(store.committedOffset(group, q.topic(), q.queueId()),
                store.minOffset(q.topic(), q.queueId()));
        if (state == null) {
            return start;
        }
        state.lock.lock();
        try {
            return state.tracked != null ? Math.max(state.tracked.base(), store.minOffset(q.topic(), q.queueId()))
                    : Math.max(start, state.popOffset);
        } finally {
            state.lock.unlock();
        }
    }

    /** Whether the group consumed a message or has it in flight. */
    boolean taken(final State state, final String group, final PopStore.QueueRef q, final long offset) {
        if (state == null) {
            return offset < store.committedOffset(group, q.topic(), q.queueId());
        }
        state.lock.lock();
        try {
            return state.tracked != null ? !state.tracked.isAvailable(offset) : offset < state.popOffset;
        } finally {
            state.lock.unlock();
        }
    }
}
