package io.junction.mqtt;

import io.junction.core.message.MessageIds;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Qos2Ledger} side of one persistent session: which QoS 2 messages it completed (so that reading them again
 * after a restart sends nothing), which ones it had in flight at the restart and whose message its readers have not
 * reached again yet, the read offsets the ledger knew, and the inbound QoS 2 PUBLISHes awaiting PUBREL. Changes are
 * saved coalesced (every request made in one event-loop turn shares one write), except an inbound PUBLISH's, which
 * must be in the log before its message. All methods run on the session's executor.
 */
final class ExactlyOnce {
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnce.class);

    private final String clientId;
    private final Qos2Ledger ledger;
    private final EventLoop executor;
    /** Completed QoS 2 deliveries at or above their queue's committed offset. */
    private final Set<Qos2Ledger.Position> done = new HashSet<>();
    /** In-flight deliveries read back at start whose message no reader has brought again yet. */
    private final Map<Qos2Ledger.Position, Delivery> awaitingReader = new HashMap<>();
    private final Map<Qos2Ledger.Queue, Long> restoredOffsets = new HashMap<>();
    /** The queues with QoS 2 deliveries so far: their offsets go into every record. */
    private final Set<Qos2Ledger.Queue> qos2Queues = new HashSet<>();
    /** Inbound QoS 2 PUBLISHes awaiting PUBREL, by packet id (also those read back at start). */
    private final Map<Integer, Qos2Ledger.Inbound> inbound = new HashMap<>();
    /** The state to save, taken when the write is issued: the session's in-flight QoS 2 deliveries and offsets. */
    private final Supplier<Iterable<Delivery>> inFlight;
    private final Supplier<Map<Qos2Ledger.Queue, Long>> committed;
    private CompletableFuture<Void> nextSave;
    private boolean stopped;

    ExactlyOnce(final String clientId, final Qos2Ledger ledger, final EventLoop executor,
                final Supplier<Iterable<Delivery>> inFlight, final Supplier<Map<Qos2Ledger.Queue, Long>> committed) {
        this.clientId = clientId;
        this.ledger = ledger;
        this.executor = executor;
        this.inFlight = inFlight;
        this.committed = committed;
    }

    /**
     * Takes the state read back at start; returns the in-flight deliveries as placeholders (packet id, position and
     * release, no message yet) for the session's in-flight table, in their original order.
     */
    List<Delivery> restore(final Qos2Ledger.Saved saved) {
        done.addAll(saved.done());
        restoredOffsets.putAll(saved.committed());
        qos2Queues.addAll(saved.committed().keySet());
        saved.inbound().forEach(i -> inbound.put(i.packetId(), i));
        final List<Delivery> placeholders = new ArrayList<>();
        for (Qos2Ledger.InFlight f : saved.inFlight()) {
            final Delivery d = Delivery.placeholder(f.packetId(), f.position(), f.released());
            awaitingReader.put(f.position(), d);
            placeholders.add(d);
        }
        return placeholders;
    }

    /** The committed offset the ledger knew for a queue, or -1. */
    long restoredOffset(final String coreTopic, final int queueId) {
        return restoredOffsets.getOrDefault(new Qos2Ledger.Queue(coreTopic, queueId), -1L);
    }

    boolean isDone(final Qos2Ledger.Position p) {
        return done.contains(p);
    }

    /** The placeholder of a restored in-flight delivery of this message, taken out of waiting; or null. */
    Delivery claim(final Qos2Ledger.Position p) {
        return awaitingReader.remove(p);
    }

    /** The placeholders still waiting for their message. */
    Iterable<Delivery> unclaimed() {
        return List.copyOf(awaitingReader.values());
    }

    /** A tracked delivery completed (PUBCOMP, or a PUBREC with an error): reading it again sends nothing. */
    void completed(final Delivery d) {
        awaitingReader.remove(d.position);
        done.add(d.position);
        save();
    }

    /**
     * An inbound QoS 2 PUBLISH is about to be stored: records it with a fresh unique id for its message, issued now so
     * that the record precedes the message in the log. Returns the unique id to store the message with.
     */
    String receiving(final int packetId, final String coreTopic) {
        final Qos2Ledger.Inbound i = new Qos2Ledger.Inbound(packetId, MessageIds.newUniqueId(), coreTopic);
        inbound.put(packetId, i);
        if (!stopped) {
            write().whenComplete((r, e) -> logFailure(e));
        }
        return i.uniqueId();
    }

    /** The recorded inbound PUBLISH of a packet id (one read back at start, when a resend comes), or null. */
    Qos2Ledger.Inbound inbound(final int packetId) {
        return inbound.get(packetId);
    }

    /** PUBREL came for an inbound packet id (or its store failed): forgotten, lazily. */
    boolean released(final int packetId) {
        if (inbound.remove(packetId) == null) {
            return false;
        }
        save();
        return true;
    }

    /** Saves the session's state soon (with whatever else changes in this turn); completes when it is durable. */
    CompletableFuture<Void> save() {
        if (nextSave == null) {
            final CompletableFuture<Void> saved = new CompletableFuture<>();
            nextSave = saved;
            executor.execute(() -> {
                nextSave = null;
                if (stopped) {
                    saved.complete(null); // the session ended: its record is being removed
                    return;
                }
                write().whenCompleteAsync((r, e) -> {
                    logFailure(e);
                    saved.complete(null);
                }, executor);
            });
        }
        return nextSave;
    }

    /** The store refuses writes (disk full, stopping): deliveries go on, at least once. */
    private void logFailure(final Throwable e) {
        if (e != null) {
            LOG.warn("MQTT QoS 2 state of {} not stored: {}", clientId, e.toString());
        }
    }

    /** The session ended: nothing more is saved. */
    void stop() {
        stopped = true;
    }

    private CompletableFuture<?> write() {
        final Map<Qos2Ledger.Queue, Long> offsets = committed.get();
        final List<Qos2Ledger.InFlight> tracked = new ArrayList<>();
        for (Delivery d : inFlight.get()) {
            if (d.position != null) { // the ones this write records included
                tracked.add(new Qos2Ledger.InFlight(d.packetId, d.released, d.position));
            }
        }
        // Offsets of the queues that ever had QoS 2 entries (not of every queue a wildcard reads): a restart starts
        // there, past the "done" entries dropped because they lie below (the core's offsets may be older).
        done.forEach(p -> qos2Queues.add(p.queue()));
        tracked.forEach(f -> qos2Queues.add(f.position().queue()));
        final Map<Qos2Ledger.Queue, Long> relevant = new HashMap<>();
        for (Qos2Ledger.Queue q : qos2Queues) {
            final Long at = offsets.get(q);
            if (at != null) {
                relevant.put(q, at);
            }
        }
        done.removeIf(p -> p.offset() < relevant.getOrDefault(p.queue(), -1L));
        return ledger.save(clientId, tracked, done, relevant, List.copyOf(inbound.values()));
    }
}
