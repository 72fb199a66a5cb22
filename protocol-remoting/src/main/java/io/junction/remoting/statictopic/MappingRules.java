package io.junction.remoting.statictopic;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.core.meta.TopicConfig;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What this broker accepts of a {@code TopicQueueMappingDetail} (the body of UPDATE_AND_CREATE_STATIC_TOPIC).
 *
 * <p>RocketMQ's broker keeps whatever chain of items the tool computed and rewrites every send, pull and offset
 * request through it. Here the node is one broker name whose queues are logical already, so the only mapping that
 * is true is the one-to-one one: every logic queue hosted here, as the physical queue of the same number, from
 * logical offset 0, one generation, nothing sealed. That is exactly what {@code mqadmin updateStaticTopic} computes
 * for a cluster of one broker (and {@code remappingStaticTopic} onto the same broker keeps it, with a new epoch).
 * Anything else would have the tool believe in a move that did not happen, so it is refused, saying why. Epoch and
 * scope are checked as RocketMQ's {@code TopicQueueMappingManager} does: an older epoch or another scope only with
 * {@code force}; queues are never taken away, with or without it.
 */
public final class MappingRules {
    private MappingRules() {
    }

    /**
     * @param detail     the request body, parsed
     * @param topic      the request header's topic
     * @param brokerName this broker
     * @param current    the mapping held now, if any
     * @param queuesNow  the topic's queue count now (0 when it does not exist)
     * @return the static topic to keep
     * @throws MappingRefused when the mapping is not one this broker can serve as it says
     */
    public static StaticTopic accept(final JsonNode detail, final String topic, final String brokerName,
                                     final Optional<StaticTopic> current, final boolean force, final int queuesNow) {
        if (!detail.isObject()) {
            throw new MappingRefused("the request body is not a TopicQueueMappingDetail");
        }
        final String named = text(detail, "topic");
        if (named != null && !named.equals(topic)) {
            throw new MappingRefused("the mapping is for topic " + named + ", the request for " + topic);
        }
        final String bname = text(detail, "bname");
        if (!brokerName.equals(bname)) {
            throw new MappingRefused("this broker is " + brokerName + ", the mapping is for broker " + bname);
        }
        if (detail.path("dirty").asBoolean(false)) {
            throw new MappingRefused("the mapping is marked dirty");
        }
        final String scope = Optional.ofNullable(text(detail, "scope")).orElse(StaticTopic.GLOBAL_SCOPE);
        final long epoch = number(detail, "epoch");
        final long total = number(detail, "totalQueues");
        if (total < 1 || total > TopicConfig.MAX_QUEUES) {
            throw new MappingRefused("totalQueues " + total + " not in 1.." + TopicConfig.MAX_QUEUES);
        }
        final int queues = (int) total;
        if (queues < queuesNow) {
            throw new MappingRefused("topic " + topic + " has " + queuesNow + " queues; a static topic's logic"
                    + " queues are its queues and cannot be fewer (" + queues + ")");
        }
        current.ifPresent(c -> {
            if (!force && epoch < c.epoch()) {
                throw new MappingRefused(String.format("Can't accept data with small epoch %d < %d", epoch,
                        c.epoch()));
            }
            if (!force && !scope.equals(c.scope())) {
                throw new MappingRefused(String.format("Can't accept data with unmatched scope %s != %s", scope,
                        c.scope()));
            }
        });
        final TreeSet<Integer> hosted = hostedQueues(detail.get("hostedQueues"), queues, brokerName, topic);
        // As RocketMQ's broker does, a newer epoch that leaves a queue out keeps what was held for it.
        if (current.isPresent() && epoch != current.get().epoch()) {
            for (int q = 0; q < Math.min(queues, current.get().totalQueues()); q++) {
                hosted.add(q);
            }
        }
        if (hosted.size() != queues) {
            final TreeSet<Integer> missing = new TreeSet<>();
            for (int q = 0; q < queues; q++) {
                if (!hosted.contains(q)) {
                    missing.add(q);
                }
            }
            throw new MappingRefused("logic queues " + missing + " of " + topic + " are not hosted by " + brokerName
                    + ": a static topic's logic queues are all hosted by the one broker this node presents");
        }
        return new StaticTopic(topic, scope, queues, epoch);
    }

    private static TreeSet<Integer> hostedQueues(final JsonNode hosted, final int queues, final String brokerName,
                                                 final String topic) {
        final TreeSet<Integer> out = new TreeSet<>();
        if (hosted == null || hosted.isNull()) {
            return out;
        }
        if (!hosted.isObject()) {
            throw new MappingRefused("hostedQueues is not an object");
        }
        for (Map.Entry<String, JsonNode> e : hosted.properties()) {
            final int q;
            try {
                q = Integer.parseInt(e.getKey());
            } catch (NumberFormatException x) {
                throw new MappingRefused("hostedQueues key " + e.getKey() + " is not a queue number");
            }
            if (q < 0 || q >= queues) {
                throw new MappingRefused("logic queue " + q + " not in 0.." + (queues - 1));
            }
            final JsonNode items = e.getValue();
            if (items == null || !items.isArray() || items.isEmpty()) {
                continue; // RocketMQ ignores an empty item list too
            }
            if (items.size() != 1 || !oneToOne(items.get(0), q, brokerName)) {
                throw new MappingRefused("logic queue " + q + " of " + topic + " is mapped as " + items
                        + ": this node serves logic queue " + q + " as its queue " + q + " on broker " + brokerName
                        + " from offset 0 (one item: gen 0, logicOffset 0, startOffset 0, endOffset -1); moving a"
                        + " queue's writes happens below the broker name (POST /admin/topics/" + topic
                        + "/scale on a proxy over several store groups), its offsets staying one sequence");
            }
            out.add(q);
        }
        return out;
    }

    private static boolean oneToOne(final JsonNode item, final int q, final String brokerName) {
        return brokerName.equals(text(item, "bname")) && item.path("queueId").asLong(-1) == q
                && item.path("gen").asLong(-1) == 0 && item.path("logicOffset").asLong(-1) == 0
                && item.path("startOffset").asLong(-1) == 0 && item.path("endOffset").asLong(0) == -1;
    }

    private static String text(final JsonNode node, final String field) {
        final JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static long number(final JsonNode node, final String field) {
        final JsonNode v = node.get(field);
        if (v == null || !v.canConvertToLong()) {
            throw new MappingRefused("the mapping lacks a number " + field);
        }
        return v.asLong();
    }
}
