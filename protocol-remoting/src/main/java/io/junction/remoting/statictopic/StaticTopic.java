package io.junction.remoting.statictopic;

import io.junction.remoting.protocol.Json;
import java.util.Optional;

/**
 * A static topic as this broker holds it: {@code totalQueues} logic queues, every one hosted here, logic queue
 * {@code q} being the topic's queue {@code q} from logical offset 0 (one generation, nothing sealed: the one-to-one
 * mapping), under the epoch and scope the admin tool chose.
 *
 * <p>That is all the state there is: the mapping items are derived, so what is kept is one short line
 * ({@link #stored()}), far inside the key-value configuration's size limit even at the most queues a topic may have.
 */
public record StaticTopic(String topic, String scope, int totalQueues, long epoch) {
    /** RocketMQ's default scope ({@code MixAll.METADATA_SCOPE_GLOBAL}). */
    public static final String GLOBAL_SCOPE = "__global__";
    /** The prefix of the broker name clients give logic queues ({@code MixAll.LOGICAL_QUEUE_MOCK_BROKER_PREFIX}). */
    public static final String MOCK_BROKER_PREFIX = "__syslo__";

    /**
     * The broker name a client puts on this topic's logic queues ({@code TopicQueueMappingUtils.getMockBrokerName}):
     * the prefix and the scope, the global scope without its two leading underscores.
     */
    public String mockBrokerName() {
        return MOCK_BROKER_PREFIX + (GLOBAL_SCOPE.equals(scope) ? scope.substring(2) : scope);
    }

    /** The kept form: {@code epoch;queues;scope} (the scope last: it is the only free text). */
    public String stored() {
        return epoch + ";" + totalQueues + ";" + scope;
    }

    /** The kept form read back; empty when it is not one (written by something else). */
    public static Optional<StaticTopic> parseStored(final String topic, final String text) {
        final String[] parts = text == null ? new String[0] : text.split(";", 3);
        if (parts.length != 3) {
            return Optional.empty();
        }
        try {
            final int queues = Integer.parseInt(parts[1]);
            return queues < 1 || parts[2].isEmpty() ? Optional.empty()
                    : Optional.of(new StaticTopic(topic, parts[2], queues, Long.parseLong(parts[0])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code TopicQueueMappingDetail} as fastjson writes it (what GET_TOPIC_CONFIG answers with {@code lo}): the
     * mapping info plus {@code hostedQueues}, each logic queue's one item.
     */
    public String detailJson(final String brokerName) {
        final StringBuilder sb = new StringBuilder(256 + 160 * totalQueues);
        info(sb, brokerName).append(",\"hostedQueues\":{");
        for (int q = 0; q < totalQueues; q++) {
            if (q > 0) {
                sb.append(',');
            }
            sb.append('"').append(q).append("\":[{\"bname\":");
            Json.string(sb, brokerName).append(",\"endOffset\":-1,\"gen\":0,\"logicOffset\":0,\"queueId\":").append(q)
                    .append(",\"startOffset\":0,\"timeOfEnd\":-1,\"timeOfStart\":-1}]");
        }
        return sb.append("}}").toString();
    }

    /**
     * {@code TopicQueueMappingInfo} as a route's {@code topicQueueMappingByBroker} carries it: {@code currIdMap} maps
     * every logic queue to the physical queue that takes its writes here, the same number.
     */
    public String infoJson(final String brokerName) {
        return info(new StringBuilder(160 + 12 * totalQueues), brokerName).append('}').toString();
    }

    private StringBuilder info(final StringBuilder sb, final String brokerName) {
        sb.append("{\"bname\":");
        Json.string(sb, brokerName).append(",\"currIdMap\":{");
        for (int q = 0; q < totalQueues; q++) {
            if (q > 0) {
                sb.append(',');
            }
            sb.append('"').append(q).append("\":").append(q);
        }
        sb.append("},\"dirty\":false,\"epoch\":").append(epoch).append(",\"scope\":");
        Json.string(sb, scope).append(",\"topic\":");
        return Json.string(sb, topic).append(",\"totalQueues\":").append(totalQueues);
    }
}
