package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.message.MessageProperties;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable QoS 2 state of persistent sessions, so that a broker crash keeps "exactly once" for what they receive and
 * what they publish. A subscriber deduplicates a QoS 2 PUBLISH by packet id only until it gets the PUBREL; so before a
 * QoS 2 PUBLISH first goes out its packet id is bound to the message's store position here, and before a PUBREL goes out the
 * release is recorded. After a restart the session resends PUBLISH (DUP, same packet id) for what was not released,
 * PUBREL for what was, and skips what was completed: the session's read offsets are persisted only every few seconds,
 * so its readers read those messages again.
 *
 * <p>A log in the core topic {@value CoreTopics#QOS2} (a {@link CompactedLog}, one record per change of a session's
 * state, coalesced per event-loop turn; an empty body ends it). Body lines, the core topic last:
 * <pre>
 * qos2
 * c queueId committedOffset coreTopic              the reader's committed offset when the record was written
 * f packetId released(0|1) queueId offset coreTopic   in flight
 * d queueId offset coreTopic                        completed, at or above its queue's committed offset
 * i packetId uniqueId coreTopic                     inbound, awaiting PUBREL
 * </pre>
 *
 * <p>Inbound QoS 2 the same way round: a persistent session's PUBLISH is stored with a unique id chosen in advance,
 * and the record naming it is issued before the message, so it is in the log (and durable) whenever the message is.
 * After a restart, a resent PUBLISH (DUP) of a recorded packet id is stored only when no message has that id.
 */
final class Qos2Ledger {
    private static final Logger LOG = LoggerFactory.getLogger(Qos2Ledger.class);
    static final String CLIENT = "mqtt.qos2.client";

    /** One queue of a core topic. */
    record Queue(String coreTopic, int queueId) {
    }

    /** A message's place in the store. */
    record Position(Queue queue, long offset) {
    }

    /** A QoS 2 delivery in flight: its packet id, whether it was released (PUBREL sent), and its message. */
    record InFlight(int packetId, boolean released, Position position) {
    }

    /**
     * An inbound QoS 2 PUBLISH awaiting its PUBREL: its packet id, and the unique id and core topic its message is (or
     * is about to be) stored with, so that a resend after a restart can tell whether the message is in the store.
     */
    record Inbound(int packetId, String uniqueId, String coreTopic) {
    }

    /** A session's state as read back at start. */
    record Saved(List<InFlight> inFlight, Set<Position> done, Map<Queue, Long> committed, List<Inbound> inbound) {
        static final Saved EMPTY = new Saved(List.of(), Set.of(), Map.of(), List.of());
    }

    private final CompactedLog log;

    Qos2Ledger(final Messaging messaging) {
        this.log = new CompactedLog(messaging, CoreTopics.QOS2, CLIENT, System::currentTimeMillis);
    }

    CompactedLog log() {
        return log;
    }

    /** Replays the log: the state of every session that has one, by client id. */
    CompletableFuture<Map<String, Saved>> load() {
        return log.load().thenApply(x -> {
            final Map<String, Saved> out = new HashMap<>();
            for (Map.Entry<String, CompactedLog.Entry> e : log.entries()) {
                out.put(e.getKey(), decode(e.getKey(), e.getValue().body()));
            }
            return out;
        });
    }

    /** Records a session's state; the future completes when it is durable. */
    CompletableFuture<?> save(final String clientId, final Iterable<InFlight> inFlight, final Iterable<Position> done,
                              final Map<Queue, Long> committed, final Iterable<Inbound> inbound) {
        if (!MessageProperties.isEncodable(clientId)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("client id cannot be a property"));
        }
        final StringBuilder sb = new StringBuilder(64).append("qos2\n");
        for (Map.Entry<Queue, Long> c : committed.entrySet()) {
            sb.append("c ").append(c.getKey().queueId()).append(' ').append(c.getValue()).append(' ')
                    .append(c.getKey().coreTopic()).append('\n');
        }
        for (InFlight f : inFlight) {
            sb.append("f ").append(f.packetId()).append(' ').append(f.released() ? 1 : 0).append(' ')
                    .append(f.position().queue().queueId()).append(' ').append(f.position().offset()).append(' ')
                    .append(f.position().queue().coreTopic()).append('\n');
        }
        for (Position d : done) {
            sb.append("d ").append(d.queue().queueId()).append(' ').append(d.offset()).append(' ')
                    .append(d.queue().coreTopic()).append('\n');
        }
        for (Inbound i : inbound) {
            sb.append("i ").append(i.packetId()).append(' ').append(i.uniqueId()).append(' ').append(i.coreTopic())
                    .append('\n');
        }
        return log.put(clientId, Map.of(), sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Forgets a session's state (it ended, or started clean). */
    void delete(final String clientId) {
        if (MessageProperties.isEncodable(clientId) && log.get(clientId) != null) {
            log.remove(clientId).whenComplete((r, e) -> {
                if (e != null) {
                    LOG.warn("MQTT QoS 2 state of {} not removed: {}", clientId, e.toString());
                }
            });
        }
    }

    static Saved decode(final String clientId, final byte[] body) {
        final List<InFlight> inFlight = new ArrayList<>();
        final Set<Position> done = new HashSet<>();
        final Map<Queue, Long> committed = new LinkedHashMap<>();
        final List<Inbound> inbound = new ArrayList<>();
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            try {
                if (line.startsWith("c ")) {
                    final String[] f = line.split(" ", 4);
                    committed.put(new Queue(f[3], Integer.parseInt(f[1])), Long.parseLong(f[2]));
                } else if (line.startsWith("f ")) {
                    final String[] f = line.split(" ", 6);
                    inFlight.add(new InFlight(Integer.parseInt(f[1]), "1".equals(f[2]),
                            new Position(new Queue(f[5], Integer.parseInt(f[3])), Long.parseLong(f[4]))));
                } else if (line.startsWith("d ")) {
                    final String[] f = line.split(" ", 4);
                    done.add(new Position(new Queue(f[3], Integer.parseInt(f[1])), Long.parseLong(f[2])));
                } else if (line.startsWith("i ")) {
                    final String[] f = line.split(" ", 4);
                    inbound.add(new Inbound(Integer.parseInt(f[1]), f[2], f[3]));
                }
            } catch (RuntimeException e) {
                LOG.warn("skipping a malformed MQTT QoS 2 record line of {}: {}", clientId, line);
            }
        }
        return new Saved(inFlight, done, committed, inbound);
    }
}
