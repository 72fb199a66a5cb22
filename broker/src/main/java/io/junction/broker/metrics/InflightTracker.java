package io.junction.broker.metrics;

import io.junction.broker.msgtrace.MessageTraceWriter;
import io.junction.core.Receipt;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Messages popped and not yet settled (acked, given back, dead-lettered or past their invisible time), per consumer
 * group and topic: RocketMQ's {@code rocketmq_consumer_inflight_messages}.
 *
 * <p>The core does not expose its checkpoints, so the broker's {@link ObservedMessaging} follows each popped message
 * by its receipt: in-process front-ends ack the {@link Receipt} objects (wrapped here, unwrapped before the core sees
 * them), the others ack the sealed text, which is indexed the moment a front-end seals it to hand it out. At most
 * {@code maxTracked} messages are followed at once; beyond that new pops are not counted, so memory stays bounded.
 * Deadlines are checked by {@link #sweep}, off the event loops.
 */
final class InflightTracker {

    private final int maxTracked;
    private final AtomicInteger tracked = new AtomicInteger();
    private final Queue<Entry> byAge = new ConcurrentLinkedQueue<>();
    private final ConcurrentMap<String, Entry> bySealed = new ConcurrentHashMap<>();
    private final ConcurrentMap<GroupTopic, AtomicLong> counts = new ConcurrentHashMap<>();

    InflightTracker(final int maxTracked) {
        this.maxTracked = maxTracked;
    }

    /** A (group, topic) pair of label values. */
    record GroupTopic(String group, String topic) {
    }

    /** A settled message: its labels and, when spans are recorded, its trace context (else null). */
    record Settled(String group, String topic, String traceparent, String tracestate,
                   MessageTraceWriter.Delivery delivery) {
    }

    /**
     * Follows one popped message; returns the receipt to hand to the front-end in place of the core's.
     * {@code traceparent} and {@code tracestate} are kept for the ack span (null when spans are not recorded),
     * {@code delivery} for the ack's message trace record (null when the topic's trace is off).
     */
    Receipt popped(final String group, final String topic, final Receipt receipt, final long invisibleMillis,
                   final String traceparent, final String tracestate, final MessageTraceWriter.Delivery delivery) {
        if (tracked.incrementAndGet() > maxTracked) {
            tracked.decrementAndGet();
            return receipt;
        }
        final AtomicLong count = counts.computeIfAbsent(new GroupTopic(group, topic), k -> new AtomicLong());
        count.incrementAndGet();
        final Entry e = new Entry(group, topic, count, System.nanoTime() + invisibleMillis * 1_000_000L,
                traceparent, tracestate, delivery);
        byAge.add(e);
        return new TrackedReceipt(receipt, e);
    }

    /** The core's receipt behind one handed out here. */
    static Receipt unwrap(final Receipt receipt) {
        return receipt instanceof TrackedReceipt t ? t.core : receipt;
    }

    /** Settles the message of a receipt object; returns what it was, or null when it was not followed. */
    Settled settle(final Receipt receipt) {
        return receipt instanceof TrackedReceipt t ? settle(t.entry) : null;
    }

    /** Settles the message of a sealed receipt handle; returns what it was, or null when not followed. */
    Settled settle(final String sealed) {
        final Entry e = sealed == null ? null : bySealed.get(sealed);
        return e == null ? null : settle(e);
    }

    private Settled settle(final Entry e) {
        if (e.settled.compareAndSet(false, true)) {
            e.count.decrementAndGet();
            final String sealed = e.sealed;
            if (sealed != null) {
                bySealed.remove(sealed, e);
            }
        }
        return new Settled(e.group, e.topic, e.traceparent, e.tracestate, e.delivery);
    }

    /**
     * Settles what passed its invisible time (the core will redeliver it) and forgets settled entries at the head.
     * Entries are kept in pop order, so one with a long invisible time holds back the look at those behind it until
     * its own deadline; they are then counted a little longer, never lost.
     */
    void sweep(final long nowNanos) {
        Entry head;
        while ((head = byAge.peek()) != null && (head.settled.get() || nowNanos - head.deadlineNanos >= 0)) {
            settle(head);
            if (byAge.poll() == head) {
                tracked.decrementAndGet();
            }
            final String sealed = head.sealed;
            if (sealed != null) {
                bySealed.remove(sealed, head);
            }
        }
    }

    /** Messages in flight now by (group, topic); pairs at zero included. */
    Map<GroupTopic, Long> snapshot() {
        final Map<GroupTopic, Long> out = new ConcurrentHashMap<>();
        counts.forEach((k, v) -> out.put(k, Math.max(0, v.get())));
        return out;
    }

    private static final class Entry {
        final String group;
        final String topic;
        final AtomicLong count;
        final long deadlineNanos;
        final String traceparent;
        final String tracestate;
        final MessageTraceWriter.Delivery delivery;
        final AtomicBoolean settled = new AtomicBoolean();
        volatile String sealed;

        Entry(final String group, final String topic, final AtomicLong count, final long deadlineNanos,
              final String traceparent, final String tracestate, final MessageTraceWriter.Delivery delivery) {
            this.delivery = delivery;
            this.traceparent = traceparent;
            this.tracestate = tracestate;
            this.group = group;
            this.topic = topic;
            this.count = count;
            this.deadlineNanos = deadlineNanos;
        }
    }

    /** The core's receipt, remembering which followed message it settles; indexes its sealed text once made. */
    private final class TrackedReceipt implements Receipt {
        private final Receipt core;
        private final Entry entry;

        TrackedReceipt(final Receipt core, final Entry entry) {
            this.core = core;
            this.entry = entry;
        }

        @Override
        public String sealed() {
            final String s = core.sealed();
            if (entry.sealed == null) {
                entry.sealed = s;
                if (!entry.settled.get()) {
                    bySealed.put(s, entry);
                }
            }
            return s;
        }
    }
}
