package io.junction.core.pop;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PopStart;
import io.junction.core.PoppedMessage;
import io.junction.core.PullResult;
import io.junction.core.Receipt;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.filter.TagFilter;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POP consumption: the server hands each group's messages out across all queues of a topic, keeps them invisible to
 * the group while a consumer works on them, and brings back the ones not acked in time through the group's retry
 * topic, until they have been delivered {@code maxReconsumeTimes + 1} times; then they go to the dead-letter topic.
 *
 * <p>Design: per (group, topic, queue) a pop offset says where the next pop reads, advanced under a per-queue lock so
 * one message is never handed to two consumers. Each pop of a queue appends a checkpoint record (offsets, deadline)
 * to the revive topic, and each ack an ack record; the pop answers only once its checkpoint is stored, so what is in
 * flight survives a restart by replaying the revive queues. The group's committed offset follows the stored
 * checkpoints, never ahead of them. A revive tick re-puts expired, un-acked messages into the retry topic (or the
 * dead-letter topic) and records them as done.
 */
public final class PopService {
    /** System topic holding checkpoint and ack records. */
    public static final String REVIVE_TOPIC = "rmq_sys_REVIVE_LOG";
    /** Queues of the revive topic; a group and topic always use the same one. */
    public static final int REVIVE_QUEUES = 8;
    /** Pseudo-group under which revive replay positions are committed. */
    static final String REVIVE_GROUP = "CID_RMQ_SYS_REVIVE_GROUP";
    /** Pseudo-group under which dead-letter re-drive positions are committed. */
    static final String REDRIVE_GROUP = "CID_JUNCTION_REDRIVE_GROUP";
    /** Chance that a pop looks at the retry topic before the topic's own queues. */
    private static final int RETRY_FIRST_PERCENT = 20;
    private static final Logger LOG = LoggerFactory.getLogger(PopService.class);
    /** Most entries one FIFO pop looks at past the base. */
    private static final int FIFO_SCAN_LIMIT = 2048;
    /** Most messages one in-place pop (or one browse) reads: those given back or passed over, then new ones. */
    static final int IN_PLACE_SCAN_LIMIT = 2048;
    /**
     * How far past the oldest message not done an in-place pop looks: messages no pop's filter selects stay tracked
     * (a slot each), so a selector that matches nothing for this many messages waits for them to be consumed.
     */
    static final int IN_PLACE_WINDOW = 16_384;
    /** Pause before a failed revive of a checkpoint is tried again. */
    static final long REVIVE_RETRY_MILLIS = 5_000;
    private static final List<String> TIMER_PROPERTIES =
            List.of("DELAY", "TIMER_DELIVER_MS", "TIMER_DELAY_MS", "TIMER_DELAY_SEC");

    private record QueueKey(String group, String topic, int queueId) {
    }

    /** Per-queue pop position and lock. */
    private static final class QueueState {
        final ReentrantLock lock = new ReentrantLock();
        long popOffset = -1;
        int pendingCheckpoints;
        /** Set for FIFO and in-place groups, which track each message instead of a pop offset. */
        TrackedQueue tracked;
    }

    private final PopStore store;
    private final LongSupplier clock;
    private final ReceiptHandle.Codec handles;
    private final Map<QueueKey, QueueState> queues = new ConcurrentHashMap<>();
    private final Map<Long, OpenCheckpoint> open = new ConcurrentHashMap<>();
    private final PriorityQueue<OpenCheckpoint> byDeadline =
            new PriorityQueue<>((a, b) -> Long.compare(a.deadline, b.deadline));
    private final Map<String, AtomicInteger> startQueue = new ConcurrentHashMap<>();
    private final AtomicLong checkpointIds;
    private final ReentrantLock reviveLock = new ReentrantLock();
    /** Checkpoint appends not yet registered as open; revive positions must not move past them. */
    private final AtomicInteger checkpointsInProgress = new AtomicInteger();

    public PopService(final PopStore store, final LongSupplier clock, final byte[] secret) {
        this.store = store;
        this.clock = clock;
        this.handles = new ReceiptHandle.Codec(secret);
        this.checkpointIds = new AtomicLong(clock.getAsLong() * 1024);
    }

    // ---------------------------------------------------------------------------------------------------- pop

    public CompletableFuture<PopResult> pop(final PopRequest request) {
        final Optional<TopicConfig> topic = store.topic(request.topic());
        if (topic.isEmpty()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.TOPIC_NOT_FOUND,
                    "topic " + request.topic() + " does not exist"));
        }
        if (store.group(request.group()).isEmpty()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.GROUP_NOT_FOUND,
                    "consumer group " + request.group() + " does not exist"));
        }
        if (request.maxMessages() < 1 || request.maxMessages() > PopRequest.MAX_MESSAGES
                || request.invisibleMillis() < 0) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                    "pop takes 1.." + PopRequest.MAX_MESSAGES + " messages and a non-negative invisible time"));
        }
        final CompletableFuture<PopResult> result = new CompletableFuture<>();
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
                Math.max(0, request.maxWaitMillis()));
        store.readExecutor().execute(() -> popOrPark(request, topic.get(), result, deadline));
        return result;
    }

    /**
     * Pops, or parks until a queue of the topic gets a message and tries again; an arrival the filter rejects parks
     * it again for the rest of the wait, so a long poll answers empty only when its wait is over.
     */
    private void popOrPark(final PopRequest request, final TopicConfig topic, final CompletableFuture<PopResult> result,
                           final long deadlineNanos) {
        if (result.isCancelled()) {
            return; // the caller gave up while this pop was parked
        }
        try {
            final List<PopStore.QueueRef> order = queueOrder(request.group(), topic);
            // Queue ends before reading: a message landing between the read and the parking below must not be
            // missed until the wait runs out.
            final long[] ends = new long[order.size()];
            for (int i = 0; i < ends.length; i++) {
                ends[i] = store.maxOffset(order.get(i).topic(), order.get(i).queueId());
            }
            final List<CompletableFuture<List<PoppedMessage>>> batches = new ArrayList<>();
            int wanted = request.maxMessages();
            for (PopStore.QueueRef q : order) {
                if (wanted <= 0) {
                    break;
                }
                final Batch batch = popQueue(request, q, wanted);
                if (batch != null) {
                    wanted -= batch.count;
                    batches.add(batch.stored);
                }
            }
            final long remainingMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(
                    deadlineNanos - System.nanoTime());
            final Runnable unpark = batches.isEmpty() && remainingMillis > 0 ? store.parkAny(order, remainingMillis,
                    () -> popOrPark(request, topic, result, deadlineNanos)) : null;
            if (unpark != null) {
                // A caller that gives up (cancels the future: its client left) frees the parked pop now.
                result.whenComplete((x, e) -> {
                    if (result.isCancelled()) {
                        unpark.run();
                    }
                });
                for (int i = 0; i < ends.length; i++) {
                    final PopStore.QueueRef q = order.get(i);
                    if (store.maxOffset(q.topic(), q.queueId()) != ends[i]) {
                        store.wake(q.topic(), q.queueId()); // it landed meanwhile: look again now
                        break;
                    }
                }
                return;
            }
            CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
                final List<PoppedMessage> all = new ArrayList<>();
                for (CompletableFuture<List<PoppedMessage>> b : batches) {
                    if (!b.isCompletedExceptionally()) {
                        all.addAll(b.join());
                    }
                }
                if (all.isEmpty() && e != null) {
                    result.completeExceptionally(e);
                } else if (!result.complete(new PopResult(all))) {
                    giveBack(request.group(), all); // cancelled while taking them: nobody will deliver these
                }
            });
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    /** Makes messages a cancelled pop took visible to the group again at once. */
    private void giveBack(final String group, final List<PoppedMessage> messages) {
        for (PoppedMessage m : messages) {
            changeInvisibleTime(group, m.receiptHandle(), 0).whenComplete((h, e) -> {
                if (e != null) {
                    LOG.debug("Giving back a message of a cancelled pop for {} failed: {}", group, e.getMessage());
                }
            });
        }
    }

    /** The topic's queues from a rotating start, with the retry topic first now and then, else last. */
    private List<PopStore.QueueRef> queueOrder(final String group, final TopicConfig topic) {
        final List<PopStore.QueueRef> order = new ArrayList<>(topic.queueCount() + 1);
        final int start = startQueue.computeIfAbsent(group + '@' + topic.name(), k -> new AtomicInteger())
                .getAndIncrement();
        for (int i = 0; i < topic.queueCount(); i++) {
            order.add(new PopStore.QueueRef(topic.name(), Math.floorMod(start + i, topic.queueCount())));
        }
        // The retry queue is always in the list, even before its topic exists: a pop parked now must wake when the
        // first redelivery creates it.
        final PopStore.QueueRef retryQueue = new PopStore.QueueRef(SystemNames.retryTopic(group, topic.name()), 0);
        if (ThreadLocalRandom.current().nextInt(100) < RETRY_FIRST_PERCENT) {
            order.add(0, retryQueue);
        } else {
            order.add(retryQueue);
        }
        return order;
    }

    private record Batch(int count, CompletableFuture<List<PoppedMessage>> stored) {
    }

    /** Pops up to {@code max} messages of one queue; null when it had none (or another consumer holds it). */
    private Batch popQueue(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final Optional<GroupConfig> group = store.group(request.group());
        if (group.map(GroupConfig::fifo).orElse(false)) {
            return popFifoQueue(request, q, max);
        }
        if (group.map(GroupConfig::inPlace).orElse(false)) {
            return popInPlace(request, q, max);
        }
        final QueueKey key = new QueueKey(request.group(), q.topic(), q.queueId());
        final QueueState state = queues.computeIfAbsent(key, k -> new QueueState());
        if (!state.lock.tryLock()) {
            return null; // another pop is reading this queue right now; the others are as good
        }
        try {
            if (state.popOffset < 0) {
                state.popOffset = startOffset(request, q);
            }
            final PullResult read = store.read(q.topic(), q.queueId(), state.popOffset, max, request.filter());
            final long next = Math.max(read.nextOffset(), state.popOffset);
            if (read.messages().isEmpty()) {
                if (next != state.popOffset) {
                    state.popOffset = next;
                    if (state.pendingCheckpoints == 0) {
                        store.commitOffset(request.group(), q.topic(), q.queueId(), next);
                    }
                }
                return null;
            }
            state.popOffset = next;
            final List<StoredMessage> messages = read.messages();
            final long now = clock.getAsLong();
            final long deadline = now + request.invisibleMillis();
            final long[] offsets = new long[messages.size()];
            final int[] reconsume = new int[messages.size()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = messages.get(i).queueOffset();
                reconsume[i] = messages.get(i).reconsumeTimes();
            }
            final long id = checkpointIds.incrementAndGet();
            state.pendingCheckpoints++;
            // Appended under the queue lock: checkpoints of one queue reach the log in pop order, so once one is
            // stored, all earlier ones are too, and committing its end offset can never skip a message.
            final CompletableFuture<OpenCheckpoint> stored = storeCheckpoint(false, id, deadline, request.group(),
                    q.topic(), q.queueId(), offsets, reconsume);
            final CompletableFuture<List<PoppedMessage>> popped = stored.handle((ck, e) -> {
                state.lock.lock();
                try {
                    state.pendingCheckpoints--;
                    if (e != null) {
                        // Not stored: give the messages back to the group.
                        state.popOffset = Math.min(state.popOffset, offsets[0]);
                        throw new StoreException(StoreError.IO_ERROR, "pop checkpoint not stored: " + e.getMessage(),
                                e);
                    }
                    final long committed = store.committedOffset(request.group(), q.topic(), q.queueId());
                    if (next > committed) {
                        store.commitOffset(request.group(), q.topic(), q.queueId(), next);
                    }
                } finally {
                    state.lock.unlock();
                }
                final List<PoppedMessage> out = new ArrayList<>(messages.size());
                for (int i = 0; i < messages.size(); i++) {
                    final StoredMessage m = messages.get(i);
                    final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, q.topic());
                    out.add(new PoppedMessage(m, origin, new PopReceipt(new ReceiptHandle(id, i, request.group(),
                            q.topic(), q.queueId(), m.queueOffset(), m.reconsumeTimes(), deadline), handles),
                            m.reconsumeTimes()));
                }
                return out;
            });
            return new Batch(messages.size(), popped);
        } finally {
            state.lock.unlock();
        }
    }

    /**
     * Where a pop of the group starts reading a queue it has no position in memory for: its committed offset (not
     * below the queue's oldest retained message), or, for a group that never consumed from the queue, the request's
     * {@link PopStart} (a retry topic: its oldest message). That first position is committed at once, as RocketMQ's
     * broker does, so a restart before the group's first ack does not move it. Called under the queue's lock.
     */
    private long startOffset(final PopRequest request, final PopStore.QueueRef q) {
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

    /**
     * Pops from one queue of a FIFO group: scanning from the base, takes at most one message per message group, and
     * none of a group that has an earlier message not done yet.
     */
    private Batch popFifoQueue(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final QueueKey key = new QueueKey(request.group(), q.topic(), q.queueId());
        final QueueState state = queues.computeIfAbsent(key, k -> new QueueState());
        if (!state.lock.tryLock()) {
            return null;
        }
        try {
            if (state.tracked == null) {
                state.tracked = new TrackedQueue(startOffset(request, q));
            }
            final TrackedQueue fifo = state.tracked;
            final List<StoredMessage> taken = new ArrayList<>();
            final List<Integer> deliveries = new ArrayList<>();
            final java.util.Set<String> blocked = new java.util.HashSet<>();
            long offset = fifo.base();
            int scanned = 0;
            boolean baseMoved = false;
            scan:
            while (taken.size() < max && scanned < FIFO_SCAN_LIMIT) {
                final PullResult read = store.read(q.topic(), q.queueId(), offset, 32, null);
                if (read.messages().isEmpty()) {
                    if (read.nextOffset() > offset) {
                        offset = read.nextOffset();
                        continue;
                    }
                    break;
                }
                for (StoredMessage m : read.messages()) {
                    scanned++;
                    final long at = m.queueOffset();
                    final String messageGroup = m.property(io.junction.core.message.MessageProperties.MESSAGE_GROUP);
                    // A message without a group orders with nothing.
                    final String orderKey = messageGroup == null ? "\u0000" + at : messageGroup;
                    if (fifo.isDone(at)) {
                        continue;
                    }
                    if (fifo.isInFlight(at) || blocked.contains(orderKey)) {
                        blocked.add(orderKey);
                        continue;
                    }
                    if (!request.filter().matchesTagHash(TagFilter.tagHash(m.tag()))
                            || !request.filter().matches(m.properties(), m.bornTimestamp())) {
                        baseMoved |= fifo.markDone(at); // not for this subscription: consumed by skipping it
                        continue;
                    }
                    blocked.add(orderKey);
                    taken.add(m);
                    deliveries.add(fifo.deliveries(at));
                    fifo.markInFlight(at, fifo.deliveries(at));
                    if (taken.size() >= max) {
                        break scan;
                    }
                }
                offset = read.nextOffset();
            }
            if (baseMoved) {
                store.commitOffset(request.group(), q.topic(), q.queueId(), fifo.base());
            }
            if (taken.isEmpty()) {
                return null;
            }
            final long deadline = clock.getAsLong() + request.invisibleMillis();
            final long[] offsets = new long[taken.size()];
            final int[] counts = new int[taken.size()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = taken.get(i).queueOffset();
                counts[i] = deliveries.get(i);
            }
            final long id = checkpointIds.incrementAndGet();
            final CompletableFuture<List<PoppedMessage>> popped = storeCheckpoint(true, id, deadline,
                    request.group(), q.topic(), q.queueId(), offsets, counts).handle((ck, e) -> {
                        if (e != null) {
                            withLock(state, () -> {
                                for (long o : offsets) {
                                    fifo.release(o);
                                }
                            });
                            throw new StoreException(StoreError.IO_ERROR, "pop checkpoint not stored: "
                                    + e.getMessage(), e);
                        }
                        final List<PoppedMessage> out = new ArrayList<>(taken.size());
                        for (int i = 0; i < taken.size(); i++) {
                            final StoredMessage m = taken.get(i);
                            out.add(new PoppedMessage(m, q.topic(), new PopReceipt(new ReceiptHandle(id, i,
                                    request.group(), q.topic(), q.queueId(), m.queueOffset(), counts[i], deadline),
                                    handles), counts[i]));
                        }
                        return out;
                    });
            return new Batch(taken.size(), popped);
        } finally {
            state.lock.unlock();
        }
    }

    /**
     * Pops from one queue of an in-place group: the oldest messages available first (given back, or passed over by
     * other pops' filters), then ones never looked at. A message the filter does not select stays for the group's
     * other pops (it is not consumed by being skipped, as it is for a subscription).
     */
    private Batch popInPlace(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final QueueState state = queues.computeIfAbsent(new QueueKey(request.group(), q.topic(), q.queueId()),
                k -> new QueueState());
        if (!state.lock.tryLock()) {
            return null;
        }
        try {
            final TrackedQueue tracked = trackedQueue(state, request.group(), q);
            final List<StoredMessage> taken = new ArrayList<>();
            final List<Integer> deliveries = new ArrayList<>();
            int scanned = 0;
            boolean baseMoved = false;
            long at = tracked.base();
            while (taken.size() < max && scanned < IN_PLACE_SCAN_LIMIT && (at = tracked.nextAvailable(at)) >= 0) {
                if (!tracked.passedOverBy(at, request.filter())) {
                    scanned++;
                    final StoredMessage m = readAt(q, at);
                    if (m == null) {
                        baseMoved |= tracked.markDone(at); // gone (retention): nothing to deliver any more
                    } else if (selects(request, m)) {
                        deliveries.add(tracked.deliveries(at));
                        tracked.markInFlight(at, tracked.deliveries(at));
                        taken.add(m);
                    } else {
                        tracked.passOver(at, request.filter());
                    }
                }
                at++;
            }
            long offset = tracked.frontier();
            scan:
            while (taken.size() < max && scanned < IN_PLACE_SCAN_LIMIT
                    && offset - tracked.base() < IN_PLACE_WINDOW) {
                final PullResult read = store.read(q.topic(), q.queueId(), offset,
                        Math.min(32, IN_PLACE_SCAN_LIMIT - scanned), null);
                final long next = Math.max(read.nextOffset(), offset);
                int i = 0;
                for (long o = offset; o < next; o++) {
                    final StoredMessage m = i < read.messages().size() && read.messages().get(i).queueOffset() == o
                            ? read.messages().get(i++) : null;
                    scanned++;
                    tracked.lookedUpTo(o + 1);
                    if (m == null) {
                        baseMoved |= tracked.markDone(o); // no message at this offset
                    } else if (!tracked.isAvailable(o)) {
                        tracked.passOver(o, null); // in flight or done (known from before a restart)
                    } else if (selects(request, m)) {
                        deliveries.add(tracked.deliveries(o));
                        tracked.markInFlight(o, tracked.deliveries(o));
                        taken.add(m);
                        if (taken.size() >= max) {
                            break scan;
                        }
                    } else {
                        tracked.passOver(o, request.filter());
                    }
                }
                if (next == offset) {
                    break; // the end of the queue
                }
                offset = next;
            }
            if (baseMoved) {
                store.commitOffset(request.group(), q.topic(), q.queueId(), tracked.base());
            }
            return taken.isEmpty() ? null : trackedBatch(request, q, state, taken, deliveries);
        } finally {
            state.lock.unlock();
        }
    }

    /** The queue's tracker, made at the group's committed offset (and moved past messages retention removed). */
    private TrackedQueue trackedQueue(final QueueState state, final String group, final PopStore.QueueRef q) {
        final long min = store.minOffset(q.topic(), q.queueId());
        if (state.tracked == null) {
            state.tracked = new TrackedQueue(Math.max(store.committedOffset(group, q.topic(), q.queueId()), min));
        } else if (state.tracked.base() < min) {
            state.tracked.reset(min);
        }
        return state.tracked;
    }

    /** The message at one offset of a queue, or null when there is none (any more). */
    private StoredMessage readAt(final PopStore.QueueRef q, final long offset) {
        final PullResult read = store.read(q.topic(), q.queueId(), offset, 1, null);
        return read.messages().isEmpty() || read.messages().get(0).queueOffset() != offset ? null
                : read.messages().get(0);
    }

    private static boolean selects(final PopRequest request, final StoredMessage m) {
        return request.filter().matchesTagHash(TagFilter.tagHash(m.tag()))
                && request.filter().matches(m.properties(), m.bornTimestamp());
    }

    /** Stores the checkpoint of messages an in-place pop took; if it cannot be stored they are available again. */
    private Batch trackedBatch(final PopRequest request, final PopStore.QueueRef q, final QueueState state,
                               final List<StoredMessage> taken, final List<Integer> deliveries) {
        final long deadline = clock.getAsLong() + request.invisibleMillis();
        final long[] offsets = new long[taken.size()];
        final int[] counts = new int[taken.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = taken.get(i).queueOffset();
            counts[i] = deliveries.get(i);
        }
        final long id = checkpointIds.incrementAndGet();
        final CompletableFuture<List<PoppedMessage>> popped = storeCheckpoint(true, id, deadline,
                request.group(), q.topic(), q.queueId(), offsets, counts).handle((ck, e) -> {
                    if (e != null) {
                        withLock(state, () -> {
                            for (long o : offsets) {
                                state.tracked.release(o);
                            }
                        });
                        throw new StoreException(StoreError.IO_ERROR, "pop checkpoint not stored: "
                                + e.getMessage(), e);
                    }
                    final List<PoppedMessage> out = new ArrayList<>(taken.size());
                    for (int i = 0; i < taken.size(); i++) {
                        final StoredMessage m = taken.get(i);
                        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, q.topic());
                        out.add(new PoppedMessage(m, origin, new PopReceipt(new ReceiptHandle(id, i,
                                request.group(), q.topic(), q.queueId(), m.queueOffset(), counts[i], deadline),
                                handles), counts[i]));
                    }
                    return out;
                });
        return new Batch(taken.size(), popped);
    }

    private static void withLock(final QueueState state, final Runnable action) {
        state.lock.lock();
        try {
            action.run();
        } finally {
            state.lock.unlock();
        }
    }

    /**
     * A tracked message is done. In a FIFO group its message group may move on, so parked pops of the queue look
     * again; in an in-place group nothing became available.
     */
    private void doneInPlace(final OpenCheckpoint ck, final int index) {
        final QueueState state = queues.get(new QueueKey(ck.group, ck.topic, ck.queueId));
        if (state == null) {
            return;
        }
        withLock(state, () -> {
            if (state.tracked != null && state.tracked.markDone(ck.offsets[index])) {
                store.commitOffset(ck.group, ck.topic, ck.queueId, state.tracked.base());
            }
        });
        if (store.group(ck.group).map(GroupConfig::fifo).orElse(false)) {
            store.wake(ck.topic, ck.queueId);
        }
    }

    private CompletableFuture<OpenCheckpoint> storeCheckpoint(final boolean inPlace, final long id, final long deadline,
                                                              final String group, final String topic,
                                                              final int queueId, final long[] offsets,
                                                              final int[] reconsume) {
        final int reviveQueue = reviveQueue(group, topic);
        final byte[] body = CheckpointRecord.checkpoint(inPlace, id, deadline, group, topic, queueId, offsets,
                reconsume);
        checkpointsInProgress.incrementAndGet();
        return appendRevive(reviveQueue, body, "ck").thenApply(r -> {
            final OpenCheckpoint ck = new OpenCheckpoint(inPlace, id, deadline, group, topic, queueId, offsets,
                    reconsume, reviveQueue, r.queueOffset());
            register(ck);
            return ck;
        }).whenComplete((ck, e) -> checkpointsInProgress.decrementAndGet());
    }

    private void register(final OpenCheckpoint ck) {
        open.put(ck.id, ck);
        reviveLock.lock();
        try {
            byDeadline.add(ck);
        } finally {
            reviveLock.unlock();
        }
    }

    private CompletableFuture<SendResult> appendRevive(final int reviveQueue, final byte[] body, final String tag) {
        final Message record = Message.builder(REVIVE_TOPIC).queueId(reviveQueue).tag(tag).body(body).build();
        return store.topic(REVIVE_TOPIC).isPresent() ? store.appendRecord(record)
                : store.ensureTopic(REVIVE_TOPIC, REVIVE_QUEUES).thenCompose(t -> store.appendRecord(record));
    }

    static int reviveQueue(final String group, final String topic) {
        return Math.floorMod((group + '\u0000' + topic).hashCode(), REVIVE_QUEUES);
    }

    // ---------------------------------------------------------------------------------------------------- browse

    /**
     * Looks at what the group's pops would hand out next, queue by queue, without taking anything: messages neither
     * done nor in flight. For in-place groups that is exact (messages given back included); for others it is what no
     * pop has reached yet.
     */
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        final Optional<TopicConfig> topic = store.topic(request.topic());
        if (topic.isEmpty()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.TOPIC_NOT_FOUND,
                    "topic " + request.topic() + " does not exist"));
        }
        final CompletableFuture<BrowseResult> result = new CompletableFuture<>();
        store.readExecutor().execute(() -> {
            try {
                result.complete(browse(request, topic.get()));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private BrowseResult browse(final BrowseRequest request, final TopicConfig topic) {
        final int queueCount = topic.queueCount();
        final long[] positions = new long[queueCount];
        java.util.Arrays.fill(positions, -1);
        if (request.positions() != null) {
            System.arraycopy(request.positions(), 0, positions, 0, Math.min(queueCount, request.positions().length));
        }
        final List<StoredMessage> found = new ArrayList<>();
        final int max = Math.max(1, request.maxMessages());
        int scanned = 0;
        boolean end = true;
        for (int queueId = 0; queueId < queueCount; queueId++) {
            final PopStore.QueueRef q = new PopStore.QueueRef(topic.name(), queueId);
            final QueueState state = queues.get(new QueueKey(request.group(), q.topic(), queueId));
            if (positions[queueId] < 0) {
                positions[queueId] = firstNotTaken(request.group(), q, state);
            }
            while (found.size() < max && scanned < IN_PLACE_SCAN_LIMIT) {
                final long from = positions[queueId];
                final PullResult read = store.read(q.topic(), queueId, from, Math.min(32, max - found.size()), null);
                final long next = Math.max(read.nextOffset(), from);
                if (next == from) {
                    break; // the end of the queue
                }
                positions[queueId] = next;
                for (StoredMessage m : read.messages()) {
                    scanned++;
                    if (!taken(state, request.group(), q, m.queueOffset())
                            && request.filter().matchesTagHash(
                                    TagFilter.tagHash(m.tag()))
                            && request.filter().matches(m.properties(), m.bornTimestamp())) {
                        found.add(m);
                    }
                }
            }
            end &= positions[queueId] >= store.maxOffset(q.topic(), queueId);
        }
        return new BrowseResult(found, positions, end);
    }

    /** Where the group's pops would start reading a queue. */
    private long firstNotTaken(final String group, final PopStore.QueueRef q, final QueueState state) {
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
    private boolean taken(final QueueState state, final String group, final PopStore.QueueRef q, final long offset) {
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

    // ---------------------------------------------------------------------------------------------------- ack

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
        return ackChecked(receiptHandles, text -> validHandle(group, text));
    }

    /**
     * {@link #ack(String, List)} for receipts as pops made them: those of this service are taken as they are, without
     * opening sealed text (an in-process front-end never lets a client touch them).
     */
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return ackChecked(receipts, r -> r instanceof PopReceipt p && p.madeWith(handles) ? ofGroup(group, p.handle)
                : validHandle(group, r.sealed()));
    }

    /** Checks each receipt with {@code check} (which throws for an invalid one), then acks the valid ones. */
    private <T> CompletableFuture<Void> ackChecked(final List<? extends T> receipts,
                                                   final Function<T, ReceiptHandle> check) {
        final List<ReceiptHandle> valid = new ArrayList<>(receipts.size());
        StoreException firstError = null;
        for (final T r : receipts) {
            try {
                valid.add(check.apply(r));
            } catch (StoreException e) {
                firstError = firstError == null ? e : firstError;
            }
        }
        return ackHandles(valid, firstError);
    }

    /** Acks the messages of checked handles, then fails with {@code error} when the caller had an invalid one. */
    private CompletableFuture<Void> ackHandles(final List<ReceiptHandle> valid, final StoreException error) {
        StoreException firstError = error;
        final Map<Integer, List<AckTarget>> byReviveQueue = new HashMap<>(4);
        for (final ReceiptHandle h : valid) {
            try {
                final OpenCheckpoint ck = openCheckpoint(h);
                byReviveQueue.computeIfAbsent(ck.reviveQueue, q -> new ArrayList<>()).add(new AckTarget(ck, h.index()));
            } catch (StoreException e) {
                firstError = firstError == null ? e : firstError;
            }
        }
        final List<CompletableFuture<?>> appended = new ArrayList<>();
        byReviveQueue.forEach((queue, targets) -> {
            for (int from = 0; from < targets.size(); from += CheckpointRecord.MAX_ACKS) {
                final List<AckTarget> chunk = targets.subList(from,
                        Math.min(targets.size(), from + CheckpointRecord.MAX_ACKS));
                final long[] ids = new long[chunk.size()];
                final int[] indexes = new int[chunk.size()];
                for (int i = 0; i < chunk.size(); i++) {
                    ids[i] = chunk.get(i).ck.id;
                    indexes[i] = chunk.get(i).index;
                }
                appended.add(appendRevive(queue, CheckpointRecord.acks(ids, indexes), "ack")
                        .thenAccept(r -> chunk.forEach(t -> acked(t.ck, t.index))));
            }
        });
        final StoreException failure = firstError;
        if (appended.isEmpty()) {
            return failure == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(failure);
        }
        final CompletableFuture<Void> all = CompletableFuture.allOf(appended.toArray(new CompletableFuture<?>[0]));
        return failure == null ? all : all.thenCompose(v -> CompletableFuture.failedFuture(failure));
    }

    private record AckTarget(OpenCheckpoint ck, int index) {
    }

    /** After an ack record is durable: the message will not come back. */
    private void acked(final OpenCheckpoint ck, final int index) {
        if (ck.finish(index)) {
            if (ck.inPlace) {
                doneInPlace(ck, index);
            }
            closeIfDone(ck);
        }
    }

    /**
     * Makes a popped message visible again after {@code invisibleMillis} from now instead of at its current deadline
     * (0 = at once, as a negative acknowledgement); returns the new receipt handle, the old one no longer works.
     */
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        final ReceiptHandle h;
        final OpenCheckpoint ck;
        try {
            if (invisibleMillis < 0) {
                throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "invisible time must not be negative");
            }
            h = validHandle(group, receiptHandle);
            ck = openCheckpoint(h);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (invisibleMillis == 0 && ck.inPlace && store.group(group).map(GroupConfig::inPlace).orElse(false)
                && !store.group(group).map(GroupConfig::fifo).orElse(false)) {
            // Given back now: available again in its place at once (the handle is done with), as the revive of an
            // expired delivery would make it. (FIFO groups keep the short-lived checkpoint their clients expect.)
            return reviveInPlace(ck, h.index()).thenApply(v -> receiptHandle);
        }
        final long id = checkpointIds.incrementAndGet();
        final long deadline = clock.getAsLong() + invisibleMillis;
        // The new single-message checkpoint first: if the ack of the old one is lost, the message comes back twice,
        // never zero times.
        return storeCheckpoint(ck.inPlace, id, deadline, group, h.topic(), h.queueId(), new long[] {h.queueOffset()},
                new int[] {h.reconsumeTimes()})
                .thenCompose(newCk -> appendRevive(ck.reviveQueue, CheckpointRecord.ack(ck.id, h.index()), "ack")
                        .thenApply(r -> {
                            if (ck.finish(h.index())) {
                                closeIfDone(ck);
                            }
                            return handles.encode(new ReceiptHandle(id, 0, group, h.topic(), h.queueId(),
                                    h.queueOffset(), h.reconsumeTimes(), deadline));
                        }));
    }

    /**
     * Moves a popped message to the group's dead-letter topic now (the consumer gave up on it) and acknowledges it.
     */
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        final ReceiptHandle h;
        final OpenCheckpoint ck;
        try {
            h = validHandle(group, receiptHandle);
            ck = openCheckpoint(h);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        final PullResult read = store.read(h.topic(), h.queueId(), h.queueOffset(), 1, null);
        if (read.messages().isEmpty() || read.messages().get(0).queueOffset() != h.queueOffset()) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                    "the message of this receipt handle is no longer stored"));
        }
        final StoredMessage m = read.messages().get(0);
        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, h.topic());
        return deadLetter(group, origin, m, h.reconsumeTimes() + 1)
                .thenCompose(r -> appendRevive(ck.reviveQueue, CheckpointRecord.ack(ck.id, h.index()), "ack"))
                .thenAccept(r -> acked(ck, h.index()));
    }

    /** A negative acknowledgement: redelivery after the group's back-off for this attempt. */
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        final ReceiptHandle h = handles.decode(receiptHandle);
        final int attempt = h == null ? 0 : h.reconsumeTimes();
        return changeInvisibleTime(group, receiptHandle,
                RetryPolicy.backoffMillis(store.group(group).orElse(null), attempt));
    }

    private ReceiptHandle validHandle(final String group, final String text) {
        final ReceiptHandle h = handles.decode(text);
        if (h == null) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "invalid receipt handle");
        }
        return ofGroup(group, h);
    }

    private static ReceiptHandle ofGroup(final String group, final ReceiptHandle h) {
        if (!h.group().equals(group)) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "receipt handle belongs to another group");
        }
        return h;
    }

    private OpenCheckpoint openCheckpoint(final ReceiptHandle h) {
        final OpenCheckpoint ck = open.get(h.checkpointId());
        if (ck == null || !ck.isOpen(h.index()) || ck.offsets[h.index()] != h.queueOffset()) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "receipt handle expired: the message was "
                    + "acknowledged, or its invisible time passed and it was redelivered");
        }
        return ck;
    }

    private void closeIfDone(final OpenCheckpoint ck) {
        if (ck.allDone()) {
            open.remove(ck.id);
        }
    }

    // ---------------------------------------------------------------------------------------------------- revive

    /**
     * Brings back every message whose deadline passed un-acked: a copy goes to the group's retry topic with one
     * more delivery counted, or to its dead-letter topic once the count exceeds the group's maximum.
     *
     * @return how many messages were revived
     */
    public int revive() {
        final long now = clock.getAsLong();
        final List<OpenCheckpoint> due = new ArrayList<>();
        reviveLock.lock();
        try {
            while (!byDeadline.isEmpty() && byDeadline.peek().deadline <= now) {
                due.add(byDeadline.poll());
            }
        } finally {
            reviveLock.unlock();
        }
        int revived = 0;
        for (OpenCheckpoint ck : due) {
            if (!open.containsKey(ck.id)) {
                continue;
            }
            if (ck.retryAt > now) {
                keepForLater(ck);
                continue;
            }
            for (int i = 0; i < ck.offsets.length; i++) {
                if (!ck.isOpen(i)) {
                    continue;
                }
                try {
                    reviveOne(ck, i).join();
                    revived++;
                } catch (RuntimeException e) {
                    // Retried after a pause, not on the next tick: a refusal (a retry or dead-letter topic made
                    // read-only, a full disk) lasts until an operator acts, and the message waits for it.
                    ck.retryAt = now + REVIVE_RETRY_MILLIS;
                    final Throwable cause = e instanceof CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    if (cause instanceof StoreException refused) {
                        LOG.warn("Reviving {}/{}@{} for group {} was refused ({}); retrying in {} ms", ck.topic,
                                ck.queueId, ck.offsets[i], ck.group, refused.getMessage(), REVIVE_RETRY_MILLIS);
                    } else {
                        LOG.warn("Reviving {}/{}@{} for group {} failed; retrying in {} ms", ck.topic, ck.queueId,
                                ck.offsets[i], ck.group, REVIVE_RETRY_MILLIS, e);
                    }
                    keepForLater(ck);
                    break;
                }
            }
        }
        return revived;
    }

    private void keepForLater(final OpenCheckpoint ck) {
        reviveLock.lock();
        try {
            byDeadline.add(ck);
        } finally {
            reviveLock.unlock();
        }
    }

    private CompletableFuture<Void> reviveOne(final OpenCheckpoint ck, final int index) {
        if (ck.inPlace) {
            return reviveInPlace(ck, index);
        }
        final PullResult read = store.read(ck.topic, ck.queueId, ck.offsets[index], 1, null);
        final StoredMessage m = read.messages().isEmpty() || read.messages().get(0).queueOffset() != ck.offsets[index]
                ? null : read.messages().get(0);
        final CompletableFuture<?> put;
        if (m == null) {
            LOG.warn("Message {}/{}@{} of group {} is gone (retention); not redelivered", ck.topic, ck.queueId,
                    ck.offsets[index], ck.group);
            put = CompletableFuture.completedFuture(null);
        } else {
            put = redeliver(ck.group, ck.topic, m);
        }
        return put.thenCompose(v -> appendRevive(ck.reviveQueue, CheckpointRecord.ack(ck.id, index), "ack"))
                .thenAccept(r -> {
                    if (ck.finish(index)) {
                        closeIfDone(ck);
                    }
                });
    }

    /**
     * A tracked message's delivery timed out or was given back: it stays in place (in a FIFO group, its message group
     * stays blocked behind it) and is delivered again, or goes to the dead-letter topic once the group's maximum is
     * reached.
     */
    private CompletableFuture<Void> reviveInPlace(final OpenCheckpoint ck, final int index) {
        final int deliveries = ck.reconsumeTimes[index] + 1;
        final GroupConfig config = store.group(ck.group).orElse(GroupConfig.of(ck.group));
        if (deliveries <= config.maxReconsumeTimes()) {
            return appendRevive(ck.reviveQueue, CheckpointRecord.release(ck.id, index), "release").thenAccept(r -> {
                if (ck.finish(index)) {
                    final QueueState state = queues.get(new QueueKey(ck.group, ck.topic, ck.queueId));
                    if (state != null) {
                        withLock(state, () -> {
                            if (state.tracked != null) {
                                state.tracked.release(ck.offsets[index]);
                            }
                        });
                    }
                    store.wake(ck.topic, ck.queueId);
                    closeIfDone(ck);
                }
            });
        }
        final PullResult read = store.read(ck.topic, ck.queueId, ck.offsets[index], 1, null);
        final CompletableFuture<?> dead = read.messages().isEmpty()
                || read.messages().get(0).queueOffset() != ck.offsets[index]
                ? CompletableFuture.completedFuture(null)
                : deadLetter(ck.group, ck.topic, read.messages().get(0), deliveries);
        return dead.thenCompose(v -> appendRevive(ck.reviveQueue, CheckpointRecord.ack(ck.id, index), "ack"))
                .thenAccept(r -> {
                    if (ck.finish(index)) {
                        doneInPlace(ck, index);
                        closeIfDone(ck);
                    }
                });
    }

    private CompletableFuture<SendResult> deadLetter(final String group, final String origin, final StoredMessage m,
                                                     final int deliveries) {
        final String target = SystemNames.deadLetterTopic(group);
        final Message.Builder copy = Message.builder(target).queueId(0).body(m.bodyBytes()).flag(m.flag())
                .properties(m.properties()).sysFlag(m.sysFlag()).bornTimestamp(m.bornTimestamp())
                .bornHost(m.bornHost()).reconsumeTimes(deliveries)
                .property(MessageProperties.DLQ_ORIGIN_TOPIC, origin).property(MessageProperties.DLQ_ORIGIN_ID, m.uniqueId())
                .property(MessageProperties.RETRY_TOPIC, null);
        for (String timerProperty : TIMER_PROPERTIES) {
            copy.property(timerProperty, null);
        }
        return store.ensureTopic(target, 1).thenCompose(t -> store.append(copy.build()));
    }

    private CompletableFuture<SendResult> redeliver(final String group, final String queueTopic,
                                                    final StoredMessage m) {
        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, queueTopic);
        final int attempts = m.reconsumeTimes() + 1;
        final GroupConfig config = store.group(group).orElse(GroupConfig.of(group));
        if (attempts > config.maxReconsumeTimes()) {
            return deadLetter(group, origin, m, attempts);
        }
        final String target = SystemNames.retryTopic(group, origin);
        final Message.Builder copy = Message.builder(target).queueId(0).body(m.bodyBytes()).flag(m.flag())
                .properties(m.properties()).sysFlag(m.sysFlag()).bornTimestamp(m.bornTimestamp())
                .bornHost(m.bornHost()).reconsumeTimes(attempts).property(MessageProperties.RETRY_TOPIC, origin);
        // Redelivery is due now: a delay the original asked for must not apply again.
        for (String timerProperty : TIMER_PROPERTIES) {
            copy.property(timerProperty, null);
        }
        return store.ensureTopic(target, 1).thenCompose(t -> store.append(copy.build()));
    }

    // ---------------------------------------------------------------------------------------------------- restart

    private void replayAck(final OpenCheckpoint ck, final int index) {
        if (ck != null && ck.finish(index) && ck.inPlace) {
            final TrackedQueue tracked = queues.get(new QueueKey(ck.group, ck.topic, ck.queueId)).tracked;
            if (tracked.markDone(ck.offsets[index])) {
                store.commitOffset(ck.group, ck.topic, ck.queueId, tracked.base());
            }
        }
    }

    /**
     * Rebuilds what is in flight by replaying the revive queues from their committed positions (at start, before
     * any pop): checkpoints become open again, acks close their messages, and pop offsets move past every
     * checkpointed message.
     */
    public void recover() {
        long maxId = checkpointIds.get();
        final Map<Long, OpenCheckpoint> replayed = new java.util.HashMap<>();
        for (int q = 0; q < REVIVE_QUEUES; q++) {
            long offset = Math.max(store.committedOffset(REVIVE_GROUP, REVIVE_TOPIC, q),
                    store.minOffset(REVIVE_TOPIC, q));
            while (true) {
                final PullResult r = store.read(REVIVE_TOPIC, q, offset, 256, null);
                for (StoredMessage m : r.messages()) {
                    final Object rec = CheckpointRecord.decode(m.body());
                    if (rec instanceof CheckpointRecord.Checkpoint c) {
                        replayed.put(c.id(), new OpenCheckpoint(c.inPlace(), c.id(), c.deadline(), c.group(), c.topic(),
                                c.queueId(), c.offsets(), c.reconsumeTimes(), q, m.queueOffset()));
                        maxId = Math.max(maxId, c.id());
                        final QueueState state = queues.computeIfAbsent(new QueueKey(c.group(), c.topic(),
                                c.queueId()), k -> new QueueState());
                        final long committed = store.committedOffset(c.group(), c.topic(), c.queueId());
                        if (c.inPlace()) {
                            if (state.tracked == null) {
                                state.tracked = new TrackedQueue(Math.max(committed,
                                        store.minOffset(c.topic(), c.queueId())));
                            }
                            for (int i = 0; i < c.offsets().length; i++) {
                                state.tracked.markInFlight(c.offsets()[i], c.reconsumeTimes()[i]);
                            }
                        } else {
                            final long end = c.offsets()[c.offsets().length - 1] + 1;
                            state.popOffset = Math.max(Math.max(state.popOffset, end), committed);
                        }
                    } else if (rec instanceof CheckpointRecord.Ack a) {
                        replayAck(replayed.get(a.checkpointId()), a.index());
                    } else if (rec instanceof CheckpointRecord.Acks acks) {
                        for (int i = 0; i < acks.checkpointIds().length; i++) {
                            replayAck(replayed.get(acks.checkpointIds()[i]), acks.indexes()[i]);
                        }
                    } else if (rec instanceof CheckpointRecord.Release rel) {
                        final OpenCheckpoint ck = replayed.get(rel.checkpointId());
                        if (ck != null && ck.finish(rel.index()) && ck.inPlace) {
                            queues.get(new QueueKey(ck.group, ck.topic, ck.queueId)).tracked
                                    .release(ck.offsets[rel.index()]);
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
                register(ck);
            }
            if (ck.offsets.length > 0 && !ck.inPlace) {
                final long end = ck.offsets[ck.offsets.length - 1] + 1;
                if (end > store.committedOffset(ck.group, ck.topic, ck.queueId)) {
                    store.commitOffset(ck.group, ck.topic, ck.queueId, end);
                }
            }
        }
        checkpointIds.set(Math.max(maxId, checkpointIds.get()));
        LOG.info("POP: {} checkpoints in flight after replay", open.size());
    }

    /**
     * Moves each revive queue's committed replay position up to its oldest checkpoint still in flight (run
     * periodically; the store persists committed offsets).
     */
    public void commitRevivePositions(final java.util.function.ToLongFunction<Integer> reviveQueueEnd) {
        // Order matters: ends first, then no checkpoint half-registered, then the open ones. A checkpoint stored
        // below an end was either registered before the open set is read, or still in progress (then skip).
        final long[] ends = new long[REVIVE_QUEUES];
        for (int q = 0; q < REVIVE_QUEUES; q++) {
            ends[q] = reviveQueueEnd.applyAsLong(q);
        }
        if (checkpointsInProgress.get() > 0) {
            return;
        }
        final long[] oldest = new long[REVIVE_QUEUES];
        java.util.Arrays.fill(oldest, Long.MAX_VALUE);
        for (OpenCheckpoint ck : open.values()) {
            oldest[ck.reviveQueue] = Math.min(oldest[ck.reviveQueue], ck.reviveOffset);
        }
        for (int q = 0; q < REVIVE_QUEUES; q++) {
            final long position = Math.min(oldest[q], ends[q]);
            if (position > store.committedOffset(REVIVE_GROUP, REVIVE_TOPIC, q)) {
                store.commitOffset(REVIVE_GROUP, REVIVE_TOPIC, q, position);
            }
        }
    }

    /**
     * Sends up to {@code max} dead letters of the group back to their original topics with their delivery count
     * reset, oldest first; the position is kept, so a message is re-driven once.
     */
    public CompletableFuture<Integer> redriveDeadLetters(final String group, final int max) {
        final String dlq = SystemNames.deadLetterTopic(group);
        if (store.topic(dlq).isEmpty()) {
            return CompletableFuture.completedFuture(0);
        }
        return CompletableFuture.supplyAsync(() -> {
            long offset = Math.max(store.committedOffset(REDRIVE_GROUP, dlq, 0), store.minOffset(dlq, 0));
            int moved = 0;
            while (moved < max) {
                final PullResult r = store.read(dlq, 0, offset, Math.min(32, max - moved), null);
                if (r.messages().isEmpty()) {
                    break;
                }
                for (StoredMessage m : r.messages()) {
                    final String origin = m.property(MessageProperties.DLQ_ORIGIN_TOPIC);
                    if (origin != null) {
                        store.append(Message.builder(origin).body(m.bodyBytes()).flag(m.flag())
                                .properties(m.properties()).property(MessageProperties.DLQ_ORIGIN_TOPIC, null)
                                .property(MessageProperties.DLQ_ORIGIN_ID, null).sysFlag(m.sysFlag())
                                .bornTimestamp(m.bornTimestamp()).bornHost(m.bornHost()).build()).join();
                        moved++;
                    }
                    offset = m.queueOffset() + 1;
                    store.commitOffset(REDRIVE_GROUP, dlq, 0, offset);
                }
            }
            return moved;
        }, store.readExecutor());
    }

    /** Makes the group's next pop of the queue start at {@code offset} (replay; offsets were reset). */
    public void resetQueue(final String group, final String topic, final int queueId, final long offset) {
        final QueueState state = queues.computeIfAbsent(new QueueKey(group, topic, queueId), k -> new QueueState());
        withLock(state, () -> {
            state.popOffset = offset;
            if (state.tracked != null) {
                state.tracked.reset(offset);
            }
        });
    }

    /** Messages in flight (popped, neither acked nor revived yet). */
    public int inFlight() {
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
