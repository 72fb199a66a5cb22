package io.junction.amqp;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.Receipt;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Outcome;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Sender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A link on which the broker sends (the client's receiver): reads its consumer group with POP as far as the link's
 * credit goes, and maps the client's dispositions onto the core.
 *
 * <p>Credit drives the reads: one pop at a time asks for as much of the credit as one pop takes
 * ({@link PopRequest#MAX_MESSAGES}: with Qpid JMS's prefetch of 1000, each durable checkpoint serves 256 deliveries
 * rather than 32); it waits at the end of the queues for {@code longPollMs}; a drain request reads once without
 * waiting and then gives the rest of the credit back. Messages popped while the link had no credit left wait in a
 * short queue (at most one pop's worth).
 * Outcomes: accepted → ack; modified with delivery-failed → visible again at once with the delivery counted (the next
 * delivery's delivery-count and JMSRedelivered show it; after {@code amqp.max-delivery-attempts} the message goes to
 * the group's dead-letter topic); released, and modified without delivery-failed → given back at once, not counted
 * (AMQP 1.0 §3.4.4, §3.4.5: the message is unchanged at the node); rejected → the dead-letter topic now. Presettled
 * (at-most-once) links ack each message as it is written. When the link ends, its acks are stored first, then every
 * message it holds unsettled goes back to the group at once, counted (it was delivered), and what it took but never
 * delivered goes back uncounted ({@link #settled}: the client is answered after both).
 */
final class ConsumerLink implements LinkHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerLink.class);
    private static final long RETRY_MS = 500;
    /**
     * How long an ack may wait for the ones after it, so that they share one revive record. Only the store's record
     * waits: the client's delivery is settled at once, and an ack lost in a crash within this window means one more
     * delivery (flagged redelivered), never a lost message.
     */
    private static final long ACK_LINGER_MICROS = 5_000;
    /** Pending acks that go at once, without waiting out the linger. */
    private static final int ACK_BATCH = 256;

    private final Endpoints endpoints;
    private final Sender sender;
    private final Messaging messaging;
    private final ConsumerPlan plan;
    private final boolean presettled;
    private final Consumer<Boolean> onEnd;
    private final ArrayDeque<PoppedMessage> ready = new ArrayDeque<>();
    /**
     * Acks taken on the event loop wait here for {@link #ACK_LINGER_MICROS} (or until {@link #ACK_BATCH} of them), then
     * go to the core as one batch: a client settles deliveries one disposition at a time, and one durable record per
     * batch costs the store far less than one per message (one pass of the event loop only gathers the dispositions
     * of one read).
     */
    private final ArrayList<Receipt> pendingAcks = new ArrayList<>();
    /** Completes once every ack this link passed to the core is stored. */
    private CompletableFuture<Void> acksStored = CompletableFuture.completedFuture(null);
    /** After the link ended: completes once its acks are stored and what it held is back in the queue. */
    private CompletableFuture<?> settled = CompletableFuture.completedFuture(null);
    /**
     * The read in flight, or null; cancelled when the link ends (a parked one would otherwise take messages for
     * nobody). One at a time: two concurrent pops of one queue can complete in either order, and a JMS consumer must
     * get one producer's messages in the order they were sent.
     */
    private CompletableFuture<PopResult> inFlight;
    /** The incarnation of the group this link reads (a subscription deleted and made again is a new one). */
    private final int incarnation;
    /** Whether the read in flight may wait at the end of the queues (a long poll). */
    private boolean popWaits;
    private boolean ended;
    private final DeliveryTags tags = new DeliveryTags();

    ConsumerLink(final Endpoints endpoints, final Sender sender, final ConsumerPlan plan, final boolean presettled,
                 final Consumer<Boolean> onEnd) {
        this.endpoints = endpoints;
        this.sender = sender;
        this.messaging = endpoints.broker().messaging();
        this.plan = plan;
        this.presettled = presettled;
        this.onEnd = onEnd;
        this.incarnation = endpoints.broker().incarnation(plan.group());
    }

    ConsumerPlan plan() {
        return plan;
    }

    @Override
    public void onFlow() {
        pump();
    }

    /** From any thread: look for work (messages another link of the group left behind). */
    void wake() {
        endpoints.connection().executor().execute(() -> {
            pump();
            endpoints.connection().requestFlush();
        });
    }

    @Override
    public void onWritable() {
        pump();
    }

    private void pump() {
        if (ended) {
            return;
        }
        deliverReady();
        if (sender.getCredit() <= 0 || !ready.isEmpty()) {
            return; // waiting for credit, or for the channel to drain
        }
        final List<PoppedMessage> adopted = endpoints.broker().claim(plan.group(), sender.getCredit(), plan.filter());
        if (!adopted.isEmpty()) {
            ready.addAll(adopted);
            deliverReady();
            if (sender.getCredit() <= 0 || !ready.isEmpty()) {
                return;
            }
        }
        if (inFlight != null) {
            if (sender.getDrain() && popWaits) {
                sender.drained(); // nothing now; what the parked read brings waits for new credit
                endpoints.connection().requestFlush();
            }
            return;
        }
        pop(sender.getDrain());
    }

    private void pop(final boolean noWait) {
        final int max = Math.min(PopRequest.MAX_MESSAGES, sender.getCredit());
        popWaits = !noWait;
        // Listed on the console's group page (a queue consumer sends no heartbeat)
        endpoints.broker().clients().popConsumers().popped(plan.group(), "amqp", endpoints.containerId(),
                endpoints.connection().listedRemote());
        final CompletableFuture<PopResult> pop = messaging.pop(new PopRequest(plan.group(), plan.topic(),
                plan.filter(), max, endpoints.broker().settings().invisibleMs(),
                noWait ? 0 : endpoints.broker().settings().longPollMs()));
        inFlight = pop;
        pop.whenCompleteAsync((r, e) -> popped(r, e, noWait), endpoints.connection().executor());
    }

    private void popped(final PopResult result, final Throwable error, final boolean noWait) {
        inFlight = null;
        popWaits = false;
        if (ended) {
            if (result != null) {
                orphan(result.messages());
            }
            return;
        }
        if (error != null) {
            LOG.debug("Pop for {} on {} failed", plan.group(), plan.topic(), error);
            endpoints.connection().executor().schedule(this::pump, RETRY_MS, TimeUnit.MILLISECONDS);
            return;
        }
        ready.addAll(result.messages());
        deliverReady();
        if (noWait && sender.getDrain() && sender.getCredit() > 0 && ready.isEmpty()) {
            sender.drained();
        } else {
            pump();
        }
        endpoints.connection().requestFlush();
    }

    private void deliverReady() {
        final long now = System.currentTimeMillis();
        while (sender.getCredit() > 0 && !ready.isEmpty() && endpoints.connection().writable()) {
            final PoppedMessage m = ready.poll();
            final long expiresAt = AmqpMessageMapping.expiresAt(m.message().properties());
            if (expiresAt > 0 && expiresAt <= now || m.message().storeTimestamp() < plan.since()) {
                ack(m.receipt()); // expired, or older than the subscription: never delivered
                continue;
            }
            final GrowableBuffer out = endpoints.encodeBuffer();
            endpoints.mapping().toAmqp(m.message(), plan.address(), m.reconsumeTimes(), out);
            final Delivery d = sender.delivery(tags.next());
            sender.send(out.array(), 0, out.position());
            if (presettled) {
                d.settle();
                ack(m.receipt());
            } else {
                d.setContext(m.receipt());
            }
            sender.advance();
        }
    }

    @Override
    public void onDelivery(final Delivery d) {
        final Receipt receipt = (Receipt) d.getContext();
        if (receipt == null) {
            if (d.remotelySettled()) {
                d.settle();
            }
            return;
        }
        final DeliveryState state = d.getRemoteState();
        if (state instanceof TransactionalState ts) {
            final LocalTransaction txn = endpoints.transactions().get(ts.getTxnId());
            if (txn == null) {
                return; // unknown transaction: the message stays taken until the link ends
            }
            txn.enlistOutcome(this, receipt, ts.getOutcome());
            d.setContext(null);
            d.settle();
            return;
        }
        if (state == null && !d.remotelySettled()) {
            return;
        }
        settle(receipt, state instanceof Outcome o ? o : Accepted.getInstance());
        d.setContext(null);
        d.settle();
    }

    /** Applies an outcome to a message this link delivered (now, or at a transaction's commit). */
    void settle(final Receipt receipt, final Outcome outcome) {
        if (outcome instanceof Accepted) {
            ack(receipt);
        } else if (outcome instanceof Rejected) {
            messaging.deadLetter(plan.group(), receipt.sealed()).whenComplete((r, e) -> logFailure("dead-letter", e));
        } else if (outcome instanceof Modified modified && Boolean.TRUE.equals(modified.getDeliveryFailed())) {
            release(receipt);
        } else if (outcome instanceof Released || outcome instanceof Modified) {
            endpoints.broker().giveBack(plan.group(), receipt);
        } else {
            ack(receipt);
        }
    }

    private void ack(final Receipt receipt) {
        final EventExecutor loop = endpoints.connection().executor();
        if (!loop.inEventLoop()) { // a transaction's outcomes, settled when its sends are stored
            messaging.ackReceipts(plan.group(), List.of(receipt)).whenComplete((r, e) -> logFailure("ack", e));
            return;
        }
        if (pendingAcks.isEmpty()) {
            loop.schedule(this::flushAcks, ACK_LINGER_MICROS, TimeUnit.MICROSECONDS);
        }
        pendingAcks.add(receipt);
        if (pendingAcks.size() >= ACK_BATCH) {
            flushAcks();
        }
    }

    private void flushAcks() {
        if (pendingAcks.isEmpty()) {
            return;
        }
        // Always an ArrayList: a batch of another list class made the JIT recompile the core's ack loop.
        final List<Receipt> batch = new ArrayList<>(pendingAcks);
        pendingAcks.clear();
        final CompletableFuture<Void> stored = messaging.ackReceipts(plan.group(), batch);
        stored.whenComplete((r, e) -> logFailure("ack", e));
        acksStored = acksStored.isDone() ? stored : CompletableFuture.allOf(acksStored, stored);
    }

    /** Makes a message delivered and not consumed visible to the group again at once, its delivery counted. */
    CompletableFuture<?> release(final Receipt receipt) {
        return endpoints.broker().redeliver(plan.group(), receipt);
    }

    /**
     * Messages this link took but never delivered. A queue's go back in their place at once (its group is tracked in
     * place, and its other consumers may have other selectors); a subscription's next link gets them (unless the
     * subscription is gone).
     */
    private List<CompletableFuture<?>> orphan(final List<PoppedMessage> messages) {
        final List<CompletableFuture<?>> givenBack = new ArrayList<>();
        if (plan.kind() == ConsumerPlan.Kind.TRANSIENT
                || endpoints.broker().incarnation(plan.group()) != incarnation) {
            messages.forEach(m -> ack(m.receipt()));
        } else if (plan.kind() == ConsumerPlan.Kind.QUEUE) {
            messages.forEach(m -> givenBack.add(endpoints.broker().giveBack(plan.group(), m.receipt())));
        } else {
            endpoints.broker().adopt(plan.group(), messages, endpoints.connection().executor());
        }
        return givenBack;
    }

    private void logFailure(final String what, final Throwable e) {
        if (e != null) {
            LOG.debug("AMQP {} for group {} failed: {}", what, plan.group(), e.getMessage());
        }
    }

    @Override
    public void onEnd(final boolean closed) {
        if (ended) {
            return;
        }
        ended = true;
        flushAcks();
        if (inFlight != null) {
            inFlight.cancel(false); // one that already completed still reaches popped() and is orphaned there
        }
        endpoints.broker().consumerEnded(this);
        final List<CompletableFuture<?>> orphansBack = orphan(new ArrayList<>(ready));
        ready.clear();
        final List<Receipt> unsettled = new ArrayList<>();
        for (Delivery d = sender.head(); d != null; d = d.next()) {
            if (d.getContext() instanceof Receipt receipt) {
                d.setContext(null);
                unsettled.add(receipt);
            }
        }
        // What the client acknowledged is consumed before anything the link held goes back to the queue.
        settled = acksStored.handle((r, e) -> null).thenCompose(x -> {
            final List<CompletableFuture<?>> back = new ArrayList<>(orphansBack);
            unsettled.forEach(receipt -> back.add(release(receipt)));
            return CompletableFuture.allOf(back.toArray(CompletableFuture[]::new)).handle((r, e) -> null);
        });
        if (onEnd != null) {
            onEnd.accept(closed);
        }
    }

    @Override
    public CompletableFuture<?> settled() {
        return settled;
    }

    /** For logging. */
    @Override
    public String toString() {
        return "consumer " + plan;
    }
}
