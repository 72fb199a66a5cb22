package io.junction.cluster.proxy.groups;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a topic's logical queues live: for each logical queue, its segments in offset order, the last one open.
 *
 * <p>Text form (the value kept in the metadata group's key-value configs): queues in order separated by {@code ;},
 * a queue's segments separated by {@code ,}; a segment is {@code group} alone when it is the queue's first, open
 * segment in the same-numbered physical queue at offset 0 (what creation makes), else
 * {@code group:physicalQueue:logicalStart:physicalStart:sealedEnd} with {@code -} for an open end. A 4-queue topic over
 * two groups reads {@code g1;g2;g1;g2}.
 *
 * <p>A queue whose last segment is sealed is <em>closed</em> (the topic was scaled in): it takes no writes, its
 * messages stay readable. Closed queues are the last ones, so the open ones are numbered from 0 without a gap and
 * {@link #writeQueueCount()} is what producers' routes list.
 */
public record TopicPlacement(String topic, List<List<QueueSegment>> queues) {

    public TopicPlacement {
        if (queues.isEmpty()) {
            throw new IllegalArgumentException("a placement of " + topic + " without queues");
        }
        final List<List<QueueSegment>> copy = new ArrayList<>();
        boolean closedSeen = false;
        for (List<QueueSegment> segments : queues) {
            if (segments.isEmpty()) {
                throw new IllegalArgumentException("a queue of " + topic + " without segments");
            }
            final boolean closed = !segments.get(segments.size() - 1).open();
            if (closedSeen && !closed) {
                throw new IllegalArgumentException("an open queue of " + topic + " after a closed one");
            }
            closedSeen |= closed;
            copy.add(List.copyOf(segments));
        }
        if (!copy.get(0).get(copy.get(0).size() - 1).open()) {
            throw new IllegalArgumentException("topic " + topic + " has no open queue");
        }
        queues = List.copyOf(copy);
    }

    /**
     * A placement for {@code queueCount} queues: those {@code existing} places keep their segments, every further
     * queue q gets one fresh segment on group {@code q mod groups} (round robin, decided once).
     *
     * @param existing the topic's placement so far, or null
     */
    public static TopicPlacement spread(final String topic, final int queueCount, final List<String> groups,
                                        final TopicPlacement existing) {
        final List<List<QueueSegment>> queues = new ArrayList<>();
        for (int q = 0; q < queueCount; q++) {
            if (existing != null && q < existing.queueCount()) {
                queues.add(existing.queue(q));
            } else {
                queues.add(List.of(QueueSegment.fresh(groups.get(q % groups.size()), q)));
            }
        }
        return new TopicPlacement(topic, queues);
    }

    /**
     * The placement of a topic created before placements existed, as it lives: every queue wholly on the metadata
     * group. New queues added to such a topic get spread; these stay.
     */
    public static TopicPlacement onOneGroup(final String topic, final int queueCount, final String group) {
        final List<List<QueueSegment>> queues = new ArrayList<>();
        for (int q = 0; q < queueCount; q++) {
            queues.add(List.of(QueueSegment.fresh(group, q)));
        }
        return new TopicPlacement(topic, queues);
    }

    public int queueCount() {
        return queues.size();
    }

    public List<QueueSegment> queue(final int queue) {
        return queues.get(queue);
    }

    public boolean hasQueue(final int queue) {
        return queue >= 0 && queue < queues.size();
    }

    /** How many queues take writes: the open ones, numbered from 0; the rest are closed (read only). */
    public int writeQueueCount() {
        int open = 0;
        while (open < queues.size() && !closed(open)) {
            open++;
        }
        return open;
    }

    /** Whether a logical queue is closed: its last segment is sealed, it takes no writes. */
    public boolean closed(final int queue) {
        return !lastSegment(queue).open();
    }

    /** The segment a logical queue takes writes in (for a closed queue, its last, sealed, one). */
    public QueueSegment openSegment(final int queue) {
        return lastSegment(queue);
    }

    private QueueSegment lastSegment(final int queue) {
        final List<QueueSegment> segments = queues.get(queue);
        return segments.get(segments.size() - 1);
    }

    /** The segment holding a logical offset; the first one for an offset before it, the open one past the end. */
    public QueueSegment segmentFor(final int queue, final long logical) {
        final List<QueueSegment> segments = queues.get(queue);
        for (int i = segments.size() - 1; i > 0; i--) {
            if (segments.get(i).logicalStart() <= logical) {
                return segments.get(i);
            }
        }
        return segments.get(0);
    }

    /** The segment after {@code segment} in its logical queue, or null after the last. */
    public QueueSegment next(final int queue, final QueueSegment segment) {
        final List<QueueSegment> segments = queues.get(queue);
        final int i = segments.indexOf(segment);
        return i >= 0 && i + 1 < segments.size() ? segments.get(i + 1) : null;
    }

    /** The groups holding any segment of the topic, in order of first appearance. */
    public List<String> groups() {
        final Set<String> groups = new LinkedHashSet<>();
        queues.forEach(segments -> segments.forEach(s -> groups.add(s.group())));
        return List.copyOf(groups);
    }

    /** How many physical queues the topic needs on a group: its highest physical queue there plus one, 0 if none. */
    public int physicalQueueCount(final String group) {
        int count = 0;
        for (List<QueueSegment> segments : queues) {
            for (QueueSegment s : segments) {
                if (s.group().equals(group)) {
                    count = Math.max(count, s.physicalQueue() + 1);
                }
            }
        }
        return count;
    }

    /** The segment of logical queue {@code queue} holding a physical position of a group, or null. */
    public QueueSegment segmentOf(final int queue, final String group, final int physicalQueue,
                                  final long physicalOffset) {
        for (QueueSegment s : queues.get(queue)) {
            if (s.group().equals(group) && s.physicalQueue() == physicalQueue && s.holdsPhysical(physicalOffset)) {
                return s;
            }
        }
        return null;
    }

    /** The text form (see the class comment). */
    public String format() {
        final StringBuilder text = new StringBuilder();
        for (int q = 0; q < queues.size(); q++) {
            if (q > 0) {
                text.append(';');
            }
            final List<QueueSegment> segments = queues.get(q);
            for (int i = 0; i < segments.size(); i++) {
                final QueueSegment s = segments.get(i);
                if (i > 0) {
                    text.append(',');
                }
                text.append(s.group());
                if (i > 0 || !s.equals(QueueSegment.fresh(s.group(), q))) {
                    text.append(':').append(s.physicalQueue()).append(':').append(s.logicalStart()).append(':')
                            .append(s.physicalStart()).append(':').append(s.open() ? "-" : s.sealedEnd());
                }
            }
        }
        return text.toString();
    }

    /**
     * Reads the text form.
     *
     * @throws IllegalArgumentException when it is malformed
     */
    public static TopicPlacement parse(final String topic, final String text) {
        final List<List<QueueSegment>> queues = new ArrayList<>();
        final String[] queueTexts = text.split(";", -1);
        for (int q = 0; q < queueTexts.length; q++) {
            final List<QueueSegment> segments = new ArrayList<>();
            for (String segment : queueTexts[q].split(",", -1)) {
                segments.add(parseSegment(q, segment.trim()));
            }
            queues.add(segments);
        }
        return new TopicPlacement(topic, queues);
    }

    private static QueueSegment parseSegment(final int queue, final String text) {
        final String[] f = text.split(":", -1);
        try {
            if (f.length == 1 && !f[0].isEmpty()) {
                return QueueSegment.fresh(f[0], queue);
            }
            if (f.length == 5 && !f[0].isEmpty()) {
                return new QueueSegment(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                        "-".equals(f[4]) ? QueueSegment.OPEN : Long.parseLong(f[4]));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("segment '" + text + "' of queue " + queue
                + " is not group or group:queue:logicalStart:physicalStart:end");
    }
}
