package io.junction.core.pop;

import io.junction.core.PullResult;
import io.junction.core.message.StoredMessage;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds POP's state after a restart from the revive queues alone: the checkpoints still in flight, the pop
 * positions past every checkpointed message, and which tracked messages are in flight or done. Runs once at start,
 * before any pop.
 */
final class PopRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(PopRecovery.class);

    private final PopStore store;
    private final CheckpointLedger ledger;
    private final PopQueues queues;

    PopRecovery(final PopStore store, final CheckpointLedger ledger, final PopQueues queues) {
        this.store = store;
        this.ledger = ledger;
        this.queues = queues;
    }

    /**
     * Replays the revive queues from their committed positions: checkpoints become open again, acks close their
     * messages, and pop offsets move past every checkpointed message.
     */
    void recover() {
        long maxId = ledger.lastId();
        final Map<Long, OpenCheckpoint> replayed = new HashMap<>();
        for (int q = 0; q < PopService.REVIVE_QUEUES; q++) {
            long offset = Math.max(store.committedOffset(PopService.REVIVE_GROUP, PopService.REVIVE_TOPIC, q),
                    store.minOffset(PopService.REVIVE_TOPIC, q));
            while (true) {
                final PullResult r = store.read(PopService.REVIVE_TOPIC, q, offset, 256, null);
                for (StoredMessage m : r.messages()) {
                    final Object rec = CheckpointRecord.decode(m.body());
                    if (rec instanceof CheckpointRecord.Checkpoint c) {
                        replayed.put(c.id(), new OpenCheckpoint(c.inPlace(), c.id(), c.deadline(), c.group(), c.topic(),
                                c.queueId(), c.offsets(), c.reconsumeTimes(), q, m.queueOffset()));
                        maxId = Math.max(maxId, c.id());
                        replayCheckpoint(c);
                    } else if (rec instanceof CheckpointRecord.Ack a) {
                        replayAck(replayed.get(a.checkpointId()), a.index());
                    } else if (rec instanceof CheckpointRecord.Acks acks) {
                        for (int i = 0; i < acks.checkpointIds().length; i++) {
                            replayAck(replayed.get(acks.checkpointIds()[i]), acks.indexes()[i]);
                        }
                    } else if (rec instanceof CheckpointRecord.Release rel) {
                        final OpenCheckpoint ck = replayed.get(rel.checkpointId());
                        if (ck != null && ck.finish(rel.index()) && ck.inPlace) {
                            queues.find(ck.group, ck.topic, ck.queueId).tracked.release(ck.offsets[rel.index()],
                                    rel.counted(), ck);
                        }
                    }
                }
                if (r.nextOffset() <= offset || r.messages().isEmpty() && r.nextOffset() >= r.maxOffset()) {
                    break;
                }
                offset = r.nextOffset();
            }
        }
        for (OpenCheckpoint ck : replayed.values()) {
            if (!ck.allDone()) {
                ledger.register(ck);
            }
            if (ck.offsets.length > 0 && !ck.inPlace) {
                final long end = ck.offsets[ck.offsets.length - 1] + 1;
                if (end > store.committedOffset(ck.group, ck.topic, ck.queueId)) {
                    store.commitOffset(ck.group, ck.topic, ck.queueId, end);
                }
            }
        }
        ledger.idsAbove(maxId);
        LOG.info("POP: {} checkpoints in flight after replay", ledger.openCount());
    }

    /** A checkpointed message is in flight: tracked as such, or below the queue's pop offset. */
    private void replayCheckpoint(final CheckpointRecord.Checkpoint c) {
        final PopQueues.State state = queues.of(c.group(), c.topic(), c.queueId());
        final long committed = store.committedOffset(c.group(), c.topic(), c.queueId());
        if (c.inPlace()) {
            if (state.tracked == null) {
                state.tracked = new TrackedQueue(Math.max(committed, store.minOffset(c.topic(), c.queueId())));
            }
            for (int i = 0; i < c.offsets().length; i++) {
                state.tracked.markInFlight(c.offsets()[i], c.reconsumeTimes()[i]);
            }
        } else {
            final long end = c.offsets()[c.offsets().length - 1] + 1;
            state.popOffset = Math.max(Math.max(state.popOffset, end), committed);
        }
    }

    private void replayAck(final OpenCheckpoint ck, final int index) {
        if (ck != null && ck.finish(index) && ck.inPlace) {
            final TrackedQueue tracked = queues.find(ck.group, ck.topic, ck.queueId).tracked;
            if (tracked.markDone(ck.offsets[index])) {
                store.commitOffset(ck.group, ck.topic, ck.queueId, tracked.base());
            }
        }
    }
}
