package io.junction.conformance.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A queue-workload history in the style of Jepsen's: every acknowledged send and every delivery, from any protocol,
 * recorded concurrently; {@link #check()} then reports what was lost, delivered more than once, or (for FIFO message
 * groups) delivered out of order.
 *
 * <p>Only acknowledged sends count as promised: a send whose acknowledgement never arrived may or may not be
 * delivered. Duplicates are reported, not failed: at-least-once delivery allows them, and the caller decides.
 */
public final class History {
    private record Send(String id, String orderGroup, long sequence) {
    }

    private record Delivery(String id, String consumer) {
    }

    private final ConcurrentLinkedQueue<Send> sends = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();

    /** A send the broker acknowledged; {@code orderGroup} (FIFO message group) may be null, then order is unchecked. */
    public void acknowledged(final String id, final String orderGroup, final long sequence) {
        sends.add(new Send(id, orderGroup, sequence));
    }

    /** A message handed to a consumer (record in the order the consumer saw them). */
    public void delivered(final String id, final String consumer) {
        deliveries.add(new Delivery(id, consumer));
    }

    /** What the history shows. */
    public record Report(int acknowledged, int delivered, Set<String> lost, Map<String, Integer> duplicates,
                         List<String> outOfOrder, Set<String> unexpected) {
        public boolean clean() {
            return lost.isEmpty() && outOfOrder.isEmpty() && unexpected.isEmpty();
        }

        @Override
        public String toString() {
            return "acknowledged " + acknowledged + ", delivered " + delivered + ", lost " + lost.size()
                    + first(lost) + ", duplicated " + duplicates.size() + ", out of order " + outOfOrder.size()
                    + (outOfOrder.isEmpty() ? "" : " " + outOfOrder.subList(0, Math.min(5, outOfOrder.size())))
                    + ", unexpected " + unexpected.size() + first(unexpected);
        }

        private static String first(final Set<String> ids) {
            return ids.isEmpty() ? "" : " e.g. " + ids.stream().limit(5).toList();
        }
    }

    public Report check() {
        final Map<String, Send> sent = new LinkedHashMap<>();
        for (Send s : sends) {
            sent.put(s.id(), s);
        }
        final Map<String, Integer> counts = new HashMap<>();
        final Map<String, Long> lastSequenceByGroup = new HashMap<>();
        final List<String> outOfOrder = new ArrayList<>();
        final Set<String> unexpected = new TreeSet<>();
        int delivered = 0;
        for (Delivery d : deliveries) {
            delivered++;
            final int count = counts.merge(d.id(), 1, Integer::sum);
            final Send s = sent.get(d.id());
            if (s == null) {
                // Delivered but never acknowledged: allowed (the ack may have been lost), unless nothing like it was
                // sent at all; the caller filters by its own id scheme, so it is only reported.
                unexpected.add(d.id());
                continue;
            }
            if (count == 1 && s.orderGroup() != null) {
                final Long last = lastSequenceByGroup.get(s.orderGroup());
                if (last != null && s.sequence() < last) {
                    outOfOrder.add(s.orderGroup() + ": " + s.sequence() + " after " + last);
                }
                lastSequenceByGroup.merge(s.orderGroup(), s.sequence(), Math::max);
            }
        }
        final Set<String> lost = new TreeSet<>();
        for (String id : sent.keySet()) {
            if (!counts.containsKey(id)) {
                lost.add(id);
            }
        }
        final Map<String, Integer> duplicates = new HashMap<>();
        counts.forEach((id, c) -> {
            if (c > 1) {
                duplicates.put(id, c);
            }
        });
        return new Report(sent.size(), delivered, lost, duplicates, outOfOrder, unexpected);
    }
}
