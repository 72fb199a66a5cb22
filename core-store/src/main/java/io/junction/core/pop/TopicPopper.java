package io.junction.core.pop;

import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.threads.StoreTasks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a pop request for a whole topic: goes over its queues (and the group's retry queue) from a rotating start,
 * lets the reader of the group's mode take from each, and parks the request (a long poll) while there is nothing.
 */
final class TopicPopper {
    /** Chance that a pop looks at the retry topic before the topic's own queues. */
    private static final int RETRY_FIRST_PERCENT = 20;
    private static final Logger LOG = LoggerFactory.getLogger(TopicPopper.class);

    private final PopStore store;
    private final OffsetPopReader offsetReader;
    private final FifoPopReader fifoReader;
    private final InPlacePopReader inPlaceReader;
    private final PopQueues queues;
    /** Gives back what a pop cancelled while taking it. */
    private final Acknowledgements acks;
    private final Map<String, AtomicInteger> startQueue = new ConcurrentHashMap<>();

    TopicPopper(final PopStore store, final OffsetPopReader offsetReader, final FifoPopReader fifoReader,
                final InPlacePopReader inPlaceReader, final PopQueues queues, final Acknowledgements acks) {
        this.store = store;
        this.offsetReader = offsetReader;
        this.fifoReader = fifoReader;
        this.inPlaceReader = inPlaceReader;
        this.queues = queues;
        this.acks = acks;
    }

    CompletableFuture<PopResult> pop(final PopRequest request) {
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
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.maxWaitMillis()));
        final PendingPop pending = new PendingPop(request, topic.get(), result, deadline);
        // A caller that gives up (cancels the future: its client left) frees the parked pop now. One listener for
        // the pop's whole life: a pop on a busy topic is woken and parked again at every arrival another pop takes,
        // and a listener per parking kept each parked read (its waiter, its cancelled time-out) until the pop
        // answered.
        result.whenComplete((x, e) -> {
            if (result.isCancelled()) {
                pending.unpark();
            }
        });
        StoreTasks.execute(store.readExecutor(), () -> popOrPark(pending), result);
        return result;
    }

    /** A pop until it answers: what it asks, its caller's future, and the parking it waits in, if any. */
    private static final class PendingPop {
        final PopRequest request;
        final TopicConfig topic;
        final CompletableFuture<PopResult> result;
        final long deadlineNanos;
        /** Drops the latest parking (an earlier one has run, or was dropped). */
        final AtomicReference<Runnable> parked = new AtomicReference<>();

        PendingPop(final PopRequest request, final TopicConfig topic, final CompletableFuture<PopResult> result,
                   final long deadlineNanos) {
            this.request = request;
            this.topic = topic;
            this.result = result;
            this.deadlineNanos = deadlineNanos;
        }

        void unpark() {
            final Runnable u = parked.getAndSet(null);
            if (u != null) {
                u.run();
            }
        }
    }

    /**
     * Pops, or parks until a queue of the topic gets a message and tries again; an arrival the filter rejects parks
     * it again for the rest of the wait, so a long poll answers empty only when its wait is over.
     */
    private void popOrPark(final PendingPop pending) {
        final PopRequest request = pending.request;
        final TopicConfig topic = pending.topic;
        final CompletableFuture<PopResult> result = pending.result;
        if (result.isCancelled()) {
            return; // the caller gave up while this pop was parked
        }
        try {
            final List<PopStore.QueueRef> order = queueOrder(request, topic);
            // Queue ends before reading: a message landing between the read and the parking below must not be
            // missed until the wait runs out.
            final long[] ends = new long[order.size()];
            for (int i = 0; i < ends.length; i++) {
                ends[i] = store.maxOffset(order.get(i).topic(), order.get(i).queueId());
            }
            final long availableAgain = queues.availableAgain(); // likewise a message released in its place
            final List<CompletableFuture<List<PoppedMessage>>> batches = new ArrayList<>();
            int wanted = request.maxMessages();
            for (PopStore.QueueRef q : order) {
                if (wanted <= 0) {
                    break;
                }
                final PoppedBatch batch = popQueue(request, q, wanted);
                if (batch != null) {
                    wanted -= batch.count();
                    batches.add(batch.stored());
                }
            }
            final long remainingMillis = TimeUnit.NANOSECONDS.toMillis(pending.deadlineNanos - System.nanoTime());
            final Runnable unpark = batches.isEmpty() && remainingMillis > 0 ? store.parkAny(order, remainingMillis,
                    () -> popOrPark(pending)) : null;
            if (unpark != null) {
                pending.parked.set(unpark);
                if (result.isCancelled()) {
                    pending.unpark(); // cancelled while parking: the listener may have looked before the line above
                }
                if (queues.availableAgain() != availableAgain) {
                    // Released meanwhile, perhaps here: its wake found this pop not parked yet. Waking one queue wakes
                    // this pop (it is parked on all of them), and does not count as a release: no ping-pong.
                    store.wake(order.get(0).topic(), order.get(0).queueId());
                    return;
                }
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
            acks.changeInvisibleTime(group, m.receiptHandle(), 0).whenComplete((h, e) -> {
                if (e != null) {
                    LOG.debug("Giving back a message of a cancelled pop for {} failed: {}", group, e.getMessage());
                }
            });
        }
    }

    /**
     * The topic's queues from a rotating start, but those the request holds, with the retry topic first now and then,
     * else last.
     */
    private List<PopStore.QueueRef> queueOrder(final PopRequest request, final TopicConfig topic) {
        final String group = request.group();
        final List<PopStore.QueueRef> order = new ArrayList<>(topic.queueCount() + 1);
        final int start = startQueue.computeIfAbsent(group + '@' + topic.name(), k -> new AtomicInteger())
                .getAndIncrement();
        for (int i = 0; i < topic.queueCount(); i++) {
            final int queue = Math.floorMod(start + i, topic.queueCount());
            if (!request.heldQueues().contains(queue)) {
                order.add(new PopStore.QueueRef(topic.name(), queue));
            }
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

    /** Pops up to {@code max} messages of one queue with the reader of the group's mode; null when it had none. */
    private PoppedBatch popQueue(final PopRequest request, final PopStore.QueueRef q, final int max) {
        final Optional<GroupConfig> group = store.group(request.group());
        if (group.map(GroupConfig::fifo).orElse(false)) {
            return fifoReader.pop(request, q, max);
        }
        if (group.map(GroupConfig::inPlace).orElse(false)) {
            return inPlaceReader.pop(request, q, max);
        }
        return offsetReader.pop(request, q, max);
    }
}
