package io.junction.core.pop;

import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The durable ledger of what is in flight: checkpoint, ack and release records appended to the revive topic, and in
 * memory the checkpoints still open, by id and by deadline. A pop answers only once its checkpoint is written here,
 * so what is in flight survives a restart by replaying the revive queues ({@link PopRecovery}). A pop answers before
 * its checkpoint is forced ({@link #storeUnforced}): a group's offset moves past its messages only once the checkpoint
 * is durable, so a checkpoint lost in a crash only delivers them again.
 */
final class CheckpointLedger {
    /** Closed checkpoints counted before a sweep of {@link #byDeadline} is worth it. */
    private static final int SWEEP_FLOOR = 1024;

    private final PopStore store;
    private final Map<Long, OpenCheckpoint> open = new ConcurrentHashMap<>();
    private final PriorityQueue<OpenCheckpoint> byDeadline =
            new PriorityQueue<>((a, b) -> Long.compare(a.deadline, b.deadline));
    private final ReentrantLock deadlineLock = new ReentrantLock();
    /**
     * Checkpoints closed since {@link #byDeadline} was last swept (guarded by {@link #deadlineLock}). A closed
     * checkpoint stays there until swept or due: without the sweep, acked pops with a long invisible time would hold
     * memory for that whole time, whatever the number in flight.
     */
    private int closedSinceSweep;
    private final AtomicLong checkpointIds;
    /** Checkpoint appends not yet registered as open; revive positions must not move past them. */
    private final AtomicInteger checkpointsInProgress = new AtomicInteger();

    CheckpointLedger(final PopStore store, final long firstId) {
        this.store = store;
        this.checkpointIds = new AtomicLong(firstId);
    }

    /** A new checkpoint id, above every one used before (also those replayed after a restart). */
    long nextId() {
        return checkpointIds.incrementAndGet();
    }

    long lastId() {
        return checkpointIds.get();
    }

    /** After a replay: ids go on above the highest one stored. */
    void idsAbove(final long maxId) {
        checkpointIds.set(Math.max(maxId, checkpointIds.get()));
    }

    /** Appends a checkpoint record and, once it is durable, registers it as open. */
    CompletableFuture<OpenCheckpoint> store(final boolean inPlace, final long id, final long deadline,
                                            final String group, final String topic, final int queueId,
                                            final long[] offsets, final int[] reconsume) {
        return store(inPlace, id, deadline, group, topic, queueId, offsets, reconsume, false)
                .thenApply(WrittenCheckpoint::checkpoint);
    }

    /**
     * Appends the checkpoint record of a pop and registers it as open once written, before it is forced; the result
     * says when it is durable too. For pops only: a checkpoint lost in a crash must cost no more than a repeated
     * delivery, so nothing may treat its messages as consumed before it is durable (an in-place or FIFO group's
     * offset passes them once acked, and an ack is forced after its checkpoint).
     */
    CompletableFuture<WrittenCheckpoint> storeUnforced(final boolean inPlace, final long id, final long deadline,
                                                       final String group, final String topic, final int queueId,
                                                       final long[] offsets, final int[] reconsume) {
        return store(inPlace, id, deadline, group, topic, queueId, offsets, reconsume, true);
    }

    private CompletableFuture<WrittenCheckpoint> store(final boolean inPlace, final long id, final long deadline,
                                                       final String group, final String topic, final int queueId,
                                                       final long[] offsets, final int[] reconsume,
                                                       final boolean unforced) {
        final int reviveQueue = reviveQueue(group, topic);
        final Message record = record(reviveQueue, CheckpointRecord.checkpoint(inPlace, id, deadline, group, topic,
                queueId, offsets, reconsume), "ck");
        checkpointsInProgress.incrementAndGet();
        return withReviveTopic(() -> unforced ? store.appendUnforcedRecord(record) : store.appendRecord(record))
                .thenApply(r -> {
                    final OpenCheckpoint ck = new OpenCheckpoint(inPlace, id, deadline, group, topic, queueId,
                            offsets, reconsume, reviveQueue, r.queueOffset());
                    register(ck);
                    return new WrittenCheckpoint(ck, unforced ? store.whenDurable(r)
                            : CompletableFuture.completedFuture(null));
                }).whenComplete((ck, e) -> checkpointsInProgress.decrementAndGet());
    }

    /** A checkpoint registered as open, and when its record is durable. */
    record WrittenCheckpoint(OpenCheckpoint checkpoint, CompletableFuture<Void> durable) {
    }

    void register(final OpenCheckpoint ck) {
        open.put(ck.id, ck);
        keepForLater(ck);
    }

    /** Puts a checkpoint (back) among those the reviver looks at when their deadline passes. */
    void keepForLater(final OpenCheckpoint ck) {
        deadlineLock.lock();
        try {
            byDeadline.add(ck);
        } finally {
            deadlineLock.unlock();
        }
    }

    /** Takes the checkpoints whose deadline passed; those still open must be closed or kept for later. */
    List<OpenCheckpoint> takeDue(final long now) {
        final List<OpenCheckpoint> due = new ArrayList<>();
        deadlineLock.lock();
        try {
            while (!byDeadline.isEmpty() && byDeadline.peek().deadline <= now) {
                due.add(byDeadline.poll());
            }
        } finally {
            deadlineLock.unlock();
        }
        return due;
    }

    boolean isOpen(final OpenCheckpoint ck) {
        return open.containsKey(ck.id);
    }

    /** The open checkpoint a receipt handle names, or an error saying why the handle no longer works. */
    OpenCheckpoint openCheckpoint(final ReceiptHandle h) {
        final OpenCheckpoint ck = open.get(h.checkpointId());
        if (ck == null || !ck.isOpen(h.index()) || ck.offsets[h.index()] != h.queueOffset()) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "receipt handle expired: the message was "
                    + "acknowledged, or its invisible time passed and it was redelivered");
        }
        return ck;
    }

    void closeIfDone(final OpenCheckpoint ck) {
        if (ck.allDone() && open.remove(ck.id, ck)) {
            sweepIfMostlyClosed();
        }
    }

    /**
     * Drops the closed checkpoints from {@link #byDeadline} once they may be half of it: one linear sweep per that
     * many closes, so the queue holds at most about twice the open checkpoints (and {@link #SWEEP_FLOOR}).
     */
    private void sweepIfMostlyClosed() {
        deadlineLock.lock();
        try {
            closedSinceSweep++;
            if (closedSinceSweep >= SWEEP_FLOOR && closedSinceSweep * 2 >= byDeadline.size()) {
                byDeadline.removeIf(c -> open.get(c.id) != c);
                closedSinceSweep = 0;
            }
        } finally {
            deadlineLock.unlock();
        }
    }

    /** Checkpoints the reviver keeps by deadline, open or closed and not swept yet (diagnostics and tests). */
    int trackedByDeadline() {
        deadlineLock.lock();
        try {
            return byDeadline.size();
        } finally {
            deadlineLock.unlock();
        }
    }

    /** Appends the ack of one message of a checkpoint: it will not come back. */
    CompletableFuture<SendResult> appendAck(final OpenCheckpoint ck, final int index) {
        return append(ck.reviveQueue, CheckpointRecord.ack(ck.id, index), "ack");
    }

    /** Appends the acks of several messages whose checkpoints share one revive queue, as one record. */
    CompletableFuture<SendResult> appendAcks(final int reviveQueue, final long[] ids, final int[] indexes) {
        return append(reviveQueue, CheckpointRecord.acks(ids, indexes), "ack");
    }

    /** Appends the release of one tracked message of a checkpoint: it is available again in its place. */
    CompletableFuture<SendResult> appendRelease(final OpenCheckpoint ck, final int index) {
        return append(ck.reviveQueue, CheckpointRecord.release(ck.id, index), "release");
    }

    /** Appends the give-back of one tracked message: available again in its place, its delivery not counted. */
    CompletableFuture<SendResult> appendGiveBack(final OpenCheckpoint ck, final int index) {
        return append(ck.reviveQueue, CheckpointRecord.giveBack(ck.id, index), "give-back");
    }

    private CompletableFuture<SendResult> append(final int reviveQueue, final byte[] body, final String tag) {
        final Message record = record(reviveQueue, body, tag);
        return withReviveTopic(() -> store.appendRecord(record));
    }

    private static Message record(final int reviveQueue, final byte[] body, final String tag) {
        return Message.builder(PopService.REVIVE_TOPIC).queueId(reviveQueue).tag(tag).body(body).build();
    }

    /** Runs an append to the revive topic, creating the topic first if it does not exist yet. */
    private CompletableFuture<SendResult> withReviveTopic(final Supplier<CompletableFuture<SendResult>> append) {
        return store.topic(PopService.REVIVE_TOPIC).isPresent() ? append.get()
                : store.ensureTopic(PopService.REVIVE_TOPIC, PopService.REVIVE_QUEUES).thenCompose(t -> append.get());
    }

    static int reviveQueue(final String group, final String topic) {
        return Math.floorMod((group + '\u0000' + topic).hashCode(), PopService.REVIVE_QUEUES);
    }

    /**
     * Moves each revive queue's committed replay position up to its oldest checkpoint still in flight, or still
     * carrying the delivery count of a message released in its place (run periodically; the store persists committed
     * offsets).
     *
     * @param held lowers the positions (by revive queue) to the closed checkpoints that must still be replayed
     */
    void commitRevivePositions(final ToLongFunction<Integer> reviveQueueEnd, final Consumer<long[]> held) {
        // Order matters: ends first, then no checkpoint half-registered, then the open ones. A checkpoint stored
        // below an end was either registered before the open set is read, or still in progress (then skip).
        final long[] ends = new long[PopService.REVIVE_QUEUES];
        for (int q = 0; q < PopService.REVIVE_QUEUES; q++) {
            ends[q] = reviveQueueEnd.applyAsLong(q);
        }
        if (checkpointsInProgress.get() > 0) {
            return;
        }
        final long[] oldest = new long[PopService.REVIVE_QUEUES];
        Arrays.fill(oldest, Long.MAX_VALUE);
        for (OpenCheckpoint ck : open.values()) {
            oldest[ck.reviveQueue] = Math.min(oldest[ck.reviveQueue], ck.reviveOffset);
        }
        // After the open set: a checkpoint closed by a release marks its message as held first, so either look sees it.
        held.accept(oldest);
        for (int q = 0; q < PopService.REVIVE_QUEUES; q++) {
            final long position = Math.min(oldest[q], ends[q]);
            if (position > store.committedOffset(PopService.REVIVE_GROUP, PopService.REVIVE_TOPIC, q)) {
                store.commitOffset(PopService.REVIVE_GROUP, PopService.REVIVE_TOPIC, q, position);
            }
        }
    }

    /** Checkpoints open (not every message of them done). */
    int openCount() {
        return open.size();
    }

    /** Messages in flight (popped, neither acked nor revived yet). */
    int inFlight() {
        int n = 0;
        for (OpenCheckpoint ck : open.values()) {
            for (int i = 0; i < ck.offsets.length; i++) {
                if (ck.isOpen(i)) {
                    n++;
                }
            }
        }
        return n;
    }
}
