package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.SendResult;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries what a store group could not deliver itself into a sealed queue (a timer that fell due, a half message
 * committed after the seal: the store puts them in {@link SystemNames#SEALED_FORWARD_TOPIC}) to the live segment of
 * the logical queue the sealed physical queue belongs to.
 *
 * <p>Each store group's forward topic is POPped by the consumer group {@value #CONSUMER_GROUP}: every proxy runs this,
 * and POP shares the messages among them, so one proxy carries each; it acks only once the send to the live segment
 * is acknowledged. A proxy that dies in between leaves the message to come back after {@link #INVISIBLE_MILLIS} and be
 * carried again (at least once, as every POP consumer). A message whose queue has no placement naming it yet (the
 * scaling proxy died between seal and placement) is left unacknowledged and comes back likewise.
 */
final class SealedForwarder implements AutoCloseable {
    static final String CONSUMER_GROUP = "junction-sealed-forwarder";
    static final long INVISIBLE_MILLIS = 30_000;
    private static final long LONG_POLL_MILLIS = 2_000;
    private static final int BATCH = 32;
    private static final Logger LOG = LoggerFactory.getLogger(SealedForwarder.class);
    private static final Executor LATER = CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS);

    private final Supplier<Set<String>> groupNames;
    private final Function<String, Messaging> groups;
    private final PlacementBook book;
    private final Function<Message, CompletableFuture<SendResult>> send;
    /** The groups being followed, each with its POP under way (cancelled on close). */
    private final Map<String, CompletableFuture<PopResult>> following = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param groupNames the store groups there are now (groups added at run time are followed from the next sweep)
     * @param send       sends a message to a logical queue of a topic (the proxy's own send)
     */
    SealedForwarder(final Supplier<Set<String>> groupNames, final Function<String, Messaging> groups,
                    final PlacementBook book, final Function<Message, CompletableFuture<SendResult>> send) {
        this.groupNames = groupNames;
        this.groups = groups;
        this.book = book;
        this.send = send;
    }

    /** Follows every group not followed yet; called on start and whenever the set of groups changed. */
    void sweep() {
        for (String name : groupNames.get()) {
            if (!closed && following.putIfAbsent(name, new CompletableFuture<>()) == null) {
                poll(name);
            }
        }
    }

    private void poll(final String name) {
        if (closed || !groupNames.get().contains(name)) {
            following.remove(name);
            return;
        }
        final Messaging group;
        try {
            group = groups.apply(name);
        } catch (StoreException e) {
            following.remove(name);
            return;
        }
        if (group.topics().get(SystemNames.SEALED_FORWARD_TOPIC).isEmpty()) {
            // The group never forwarded anything (the usual case): look again later, asking it nothing.
            CompletableFuture.runAsync(() -> poll(name), LATER);
            return;
        }
        final CompletableFuture<PopResult> pop = group.pop(new PopRequest(CONSUMER_GROUP,
                SystemNames.SEALED_FORWARD_TOPIC, null, BATCH, INVISIBLE_MILLIS, LONG_POLL_MILLIS));
        following.put(name, pop);
        pop.whenComplete((result, failure) -> {
            if (failure != null || result.messages().isEmpty()) {
                // Nothing waiting (the long poll ran out), or the group is unavailable: ask again a little later.
                CompletableFuture.runAsync(() -> poll(name), LATER);
                return;
            }
            final List<CompletableFuture<Void>> carried = result.messages().stream()
                    .map(m -> carry(name, group, m)).toList();
            CompletableFuture.allOf(carried.toArray(CompletableFuture[]::new))
                    .whenComplete((v, e) -> poll(name));
        });
    }

    private CompletableFuture<Void> carry(final String groupName, final Messaging group, final PoppedMessage popped) {
        final StoredMessage m = popped.message();
        final String topic = m.property(MessageProperties.REAL_TOPIC);
        final int physicalQueue;
        try {
            physicalQueue = Integer.parseInt(m.property(MessageProperties.REAL_QUEUE_ID));
        } catch (NumberFormatException e) {
            LOG.warn("Forwarded message {} of group {} names no queue; dropped", m.uniqueId(), groupName);
            return group.ack(CONSUMER_GROUP, popped.receiptHandle()).exceptionally(x -> null);
        }
        final int logical = logicalQueue(topic, groupName, physicalQueue);
        if (logical < 0) {
            return CompletableFuture.completedFuture(null);
        }
        return send.apply(logicalCopy(m, topic, logical))
                .thenCompose(r -> group.ack(CONSUMER_GROUP, popped.receiptHandle()))
                .exceptionally(e -> {
                    LOG.warn("Carrying message {} to queue {} of {} failed (it comes back): {}", m.uniqueId(),
                            logical, topic, e.getMessage());
                    return null;
                });
    }

    /** The logical queue holding a segment in that physical queue of that group, or -1 when none (yet). */
    private int logicalQueue(final String topic, final String group, final int physicalQueue) {
        final TopicPlacement placement = topic == null ? null : book.get(topic);
        if (placement == null) {
            return -1;
        }
        for (int q = 0; q < placement.queueCount(); q++) {
            for (QueueSegment s : placement.queue(q)) {
                if (s.group().equals(group) && s.physicalQueue() == physicalQueue) {
                    return q;
                }
            }
        }
        return -1;
    }

    /**
     * The message as its producer meant it, for the logical queue: the forwarding properties dropped, and the delay
     * ones too (it is due: a delay level would park it again; its past deliver-at time stays and delays nothing).
     * Its delivery count starts at 0: what it carries is a producer's message, never a redelivery (retry topics are
     * never sealed), and the forwarder's own POP attempts are no consumer's failures.
     */
    private static Message logicalCopy(final StoredMessage m, final String topic, final int queue) {
        final Map<String, String> props = new LinkedHashMap<>(m.properties());
        props.remove(MessageProperties.REAL_TOPIC);
        props.remove(MessageProperties.REAL_QUEUE_ID);
        props.remove(MessageProperties.DELAY_LEVEL);
        props.remove(MessageProperties.DELAY_SEC);
        props.remove(MessageProperties.DELAY_MS);
        props.remove(MessageProperties.RETRY_TOPIC);
        return new Message(topic, queue, m.bodyBytes(), m.flag(), props, m.sysFlag(), m.bornTimestamp(),
                m.bornHost(), 0);
    }

    @Override
    public void close() {
        closed = true;
        following.values().forEach(f -> f.cancel(true));
    }
}
