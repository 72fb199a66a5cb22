package io.junction.core.pop;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.Receipt;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * POP consumption: the server hands each group's messages out across all queues of a topic, keeps them invisible to
 * the group while a consumer works on them, and brings back the ones not acked in time through the group's retry
 * topic, until they have been delivered {@code maxReconsumeTimes + 1} times; then they go to the dead-letter topic.
 *
 * <p>Design: per (group, topic, queue) a pop position ({@link PopQueues}) says where the next pop reads, advanced
 * under a per-queue lock so one message is never handed to two consumers; one reader per kind of group takes the
 * messages ({@link OffsetPopReader}, {@link FifoPopReader}, {@link InPlacePopReader}), and {@link TopicPopper} goes
 * over a topic's queues and parks long polls. Each pop of a queue appends a checkpoint record (offsets, deadline) to
 * the revive topic, and each ack an ack record ({@link CheckpointLedger}, {@link Acknowledgements}); the pop answers
 * only once its checkpoint is stored, so what is in flight survives a restart by replaying the revive queues
 * ({@link PopRecovery}). The group's committed offset follows the stored checkpoints, never ahead of them. A revive
 * tick ({@link Reviver}) re-puts expired, un-acked messages into the retry topic (or the dead-letter topic,
 * {@link Redelivery}) and records them as done.
 *
 * <p>This class only wires those parts together and is the package's public surface for the store.
 */
public final class PopService {
    /** System topic holding checkpoint and ack records. */
    public static final String REVIVE_TOPIC = "rmq_sys_REVIVE_LOG";
    /** Queues of the revive topic; a group and topic always use the same one. */
    public static final int REVIVE_QUEUES = 8;
    /** Pseudo-group under which revive replay positions are committed. */
    static final String REVIVE_GROUP = "CID_RMQ_SYS_REVIVE_GROUP";
    /** Most messages one in-place pop (or one browse) reads: those given back or passed over, then new ones. */
    static final int IN_PLACE_SCAN_LIMIT = 2048;
    /**
     * How far past the oldest message not done an in-place pop looks: messages no pop's filter selects stay tracked
     * (a slot each), so a selector that matches nothing for this many messages waits for them to be consumed.
     */
    static final int IN_PLACE_WINDOW = 16_384;

    private final PopQueues queues;
    private final CheckpointLedger ledger;
    private final TopicPopper popper;
    private final PopBrowser browser;
    private final Acknowledgements acks;
    private final Reviver reviver;
    private final PopRecovery recovery;
    private final DeadLetterRedrive redrive;

    public PopService(final PopStore store, final LongSupplier clock, final byte[] secret) {
        final ReceiptHandle.Codec handles = new ReceiptHandle.Codec(secret);
        final Redelivery redelivery = new Redelivery(store);
        this.queues = new PopQueues(store);
        this.ledger = new CheckpointLedger(store, clock.getAsLong() * 1024);
        this.reviver = new Reviver(store, clock, ledger, queues, redelivery);
        this.acks = new Acknowledgements(store, clock, handles, ledger, queues, reviver, redelivery);
        this.popper = new TopicPopper(store, new OffsetPopReader(store, clock, handles, ledger, queues),
                new FifoPopReader(store, clock, handles, ledger, queues),
                new InPlacePopReader(store, clock, handles, ledger, queues), queues, acks);
        this.browser = new PopBrowser(store, queues);
        this.recovery = new PopRecovery(store, ledger, queues);
        this.redrive = new DeadLetterRedrive(store);
    }

    public CompletableFuture<PopResult> pop(final PopRequest request) {
        return popper.pop(request);
    }

    /**
     * Looks at what the group's pops would hand out next, queue by queue, without taking anything: messages neither
     * done nor in flight. For in-place groups that is exact (messages given back included); for others it is what no
     * pop has reached yet.
     */
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return browser.browse(request);
    }

    /** Acknowledges a popped message: it will not come back. */
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return ack(group, List.of(receiptHandle));
    }

    /**
     * Acknowledges several popped messages of a group: one durable record per revive queue (up to
     * {@link CheckpointRecord#MAX_ACKS} acks each) rather than one per message. Every valid handle is acknowledged;
     * the future then fails with the first invalid handle's error, if there was one.
     */
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return acks.ack(group, receiptHandles);
    }

    /**
     * {@link #ack(String, List)} for receipts as pops made them: those of this service are taken as they are, without
     * opening sealed text (an in-process front-end never lets a client touch them).
     */
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return acks.ackReceipts(group, receipts);
    }

    /**
     * Makes a popped message visible again after {@code invisibleMillis} from now instead of at its current deadline
     * (0 = at once, as a negative acknowledgement); returns the new receipt handle, the old one no longer works.
     */
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return acks.changeInvisibleTime(group, receiptHandle, invisibleMillis);
    }

    /**
     * Moves a popped message to the group's dead-letter topic now (the consumer gave up on it) and acknowledges it.
     */
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return acks.deadLetter(group, receiptHandle);
    }

    /** Returns a popped message unconsumed: available again at once, its delivery count unchanged. */
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return acks.giveBack(group, receiptHandle);
    }

    /** A negative acknowledgement: redelivery after the group's back-off for this attempt. */
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return acks.nack(group, receiptHandle);
    }

    /**
     * Brings back every message whose deadline passed un-acked: a copy goes to the group's retry topic with one
     * more delivery counted, or to its dead-letter topic once the count exceeds the group's maximum.
     *
     * @return how many messages were revived
     */
    public int revive() {
        return reviver.revive();
    }

    /**
     * Rebuilds what is in flight by replaying the revive queues from their committed positions (at start, before
     * any pop): checkpoints become open again, acks close their messages, and pop offsets move past every
     * checkpointed message.
     */
    public void recover() {
        recovery.recover();
    }

    /**
     * Moves each revive queue's committed replay position up to its oldest checkpoint still in flight, or still
     * carrying the delivery count of a message released in its place (run periodically; the store persists committed
     * offsets).
     */
    public void commitRevivePositions(final ToLongFunction<Integer> reviveQueueEnd) {
        ledger.commitRevivePositions(reviveQueueEnd, queues::holdRevivePositions);
    }

    /**
     * Sends up to {@code max} dead letters of the group back to their original topics with their delivery count
     * reset, oldest first; the position is kept, so a message is re-driven once.
     */
    public CompletableFuture<Integer> redriveDeadLetters(final String group, final int max) {
        return redrive.redrive(group, max);
    }

    /** Makes the group's next pop of the queue start at {@code offset} (replay; offsets were reset). */
    public void resetQueue(final String group, final String topic, final int queueId, final long offset) {
        queues.reset(group, topic, queueId, offset);
    }

    /** Messages in flight (popped, neither acked nor revived yet). */
    public int inFlight() {
        return ledger.inFlight();
    }

    /** Checkpoints kept by deadline for the reviver, open or closed and not swept yet (bounded by the open ones). */
    public int checkpointsTracked() {
        return ledger.trackedByDeadline();
    }
}
