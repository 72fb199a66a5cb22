package io.junction.conformance.crash;

import io.junction.conformance.history.History;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the crash test sent and what came back, around a {@link History}.
 *
 * <p>Every message belongs to a stream (one per protocol and topic: {@code A}, {@code B}, ...) and has an id
 * {@code <stream>-<round>-<sequence>}. Its body starts with that id and a {@code |}, then random bytes, so any
 * consumer of any protocol can tell which message it got and the ledger can compare the bytes with what was sent.
 * A send is recorded as attempted before it goes out (so a delivery of a send whose ack was lost is recognised, not
 * taken for garbage) and as acknowledged only once its acknowledgement arrived.
 */
final class Ledger {
    private static final byte SEPARATOR = '|';
    private static final int MAX_ID_LENGTH = 48;

    /** A message about to be sent. */
    record Outgoing(String id, long sequence, byte[] body) {
    }

    private final History history = new History();
    private final Map<String, byte[]> attempted = new ConcurrentHashMap<>();
    private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicLong> sequences = new ConcurrentHashMap<>();
    private final Set<String> ordered = ConcurrentHashMap.newKeySet();
    private final List<String> wrongContent = Collections.synchronizedList(new ArrayList<>());
    private final List<String> unreadable = Collections.synchronizedList(new ArrayList<>());

    /** Checks FIFO order of this stream's first deliveries (a stream whose messages share one queue). */
    void ordered(final String stream) {
        ordered.add(stream);
    }

    /**
     * A new message of a stream, recorded as attempted. Bodies are mostly small; now and then one is over 4 KiB
     * (the size above which the RocketMQ client compresses) so that path is crossed as well.
     */
    Outgoing attempt(final String stream, final int round, final Random random) {
        final long sequence = sequences.computeIfAbsent(stream, s -> new AtomicLong()).incrementAndGet();
        final String id = stream + "-" + round + "-" + sequence;
        final byte[] prefix = (id + (char) SEPARATOR).getBytes(StandardCharsets.US_ASCII);
        final int size = random.nextInt(20) == 0 ? 4096 + random.nextInt(12_288) : random.nextInt(1024);
        final byte[] body = Arrays.copyOf(prefix, prefix.length + size);
        final byte[] tail = new byte[size];
        random.nextBytes(tail);
        System.arraycopy(tail, 0, body, prefix.length, size);
        attempted.put(id, body);
        return new Outgoing(id, sequence, body);
    }

    /** The broker acknowledged this send: from now on it must not be lost. */
    void acknowledged(final Outgoing message) {
        final String stream = streamOf(message.id());
        acknowledged.add(message.id());
        history.acknowledged(message.id(), ordered.contains(stream) ? stream : null, message.sequence());
    }

    /** A consumer got this body; it is checked against what was sent byte for byte. */
    void delivered(final byte[] body, final String consumer) {
        delivered(body, null, consumer);
    }

    /**
     * A consumer got this body with this id in the protocol's own id field (CloudEvents {@code id}, a JMS property,
     * the Remoting keys), which must name the same message as the body; null when the protocol has no such field.
     */
    void delivered(final byte[] body, final String protocolId, final String consumer) {
        final String id = idOf(body);
        if (id == null) {
            unreadable.add(consumer + ": " + body.length + " bytes without an id");
            return;
        }
        final byte[] sent = attempted.get(id);
        if (sent != null && !Arrays.equals(sent, body)) {
            wrongContent.add(id + " via " + consumer + ": sent " + sent.length + " bytes, got " + body.length);
        }
        if (protocolId != null && !protocolId.equals(id)) {
            wrongContent.add(id + " via " + consumer + ": delivered with the id " + protocolId);
        }
        delivered.add(id);
        history.delivered(id, consumer);
    }

    /** Whether every acknowledged message of the stream has been delivered at least once. */
    boolean allAcknowledgedDelivered(final String stream) {
        return missing(stream) == 0;
    }

    /** Acknowledged messages of the stream not delivered yet. */
    long missing(final String stream) {
        return acknowledged.stream().filter(id -> streamOf(id).equals(stream) && !delivered.contains(id)).count();
    }

    long acknowledgedCount(final String stream) {
        return acknowledged.stream().filter(id -> streamOf(id).equals(stream)).count();
    }

    long attemptedCount(final String stream) {
        return attempted.keySet().stream().filter(id -> streamOf(id).equals(stream)).count();
    }

    /** The verdict: the history's check, split by stream, plus content and id checks. */
    Verdict verdict() {
        final History.Report report = history.check();
        final Set<String> foreign = new java.util.TreeSet<>();
        final Map<String, Integer> recovered = new TreeMap<>();
        for (String id : report.unexpected()) {
            if (attempted.containsKey(id)) {
                recovered.merge(streamOf(id), 1, Integer::sum); // sent, ack lost in the crash, yet stored: allowed
            } else {
                foreign.add(id);
            }
        }
        final Map<String, Integer> duplicates = new TreeMap<>();
        report.duplicates().forEach((id, count) -> duplicates.merge(streamOf(id), count - 1, Integer::sum));
        return new Verdict(report, foreign, recovered, duplicates, List.copyOf(wrongContent), List.copyOf(unreadable));
    }

    /** The outcome of a run. */
    record Verdict(History.Report report, Set<String> foreign, Map<String, Integer> recoveredByStream,
                   Map<String, Integer> duplicatesByStream, List<String> wrongContent, List<String> unreadable) {
        int duplicates(final String stream) {
            return duplicatesByStream.getOrDefault(stream, 0);
        }
    }

    static String streamOf(final String id) {
        final int dash = id.indexOf('-');
        return dash < 0 ? id : id.substring(0, dash);
    }

    /** The sequence number in an id (its last part). */
    static long sequenceOf(final String id) {
        return Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
    }

    /** The id at the start of a body, or null when there is none. */
    static String idOf(final byte[] body) {
        for (int i = 0; i < Math.min(body.length, MAX_ID_LENGTH); i++) {
            if (body[i] == SEPARATOR) {
                return new String(body, 0, i, StandardCharsets.US_ASCII);
            }
        }
        return null;
    }
}
