package io.junction.remoting;

import io.junction.remoting.protocol.Json;

/**
 * How this node presents itself to Remoting clients: one broker (master, id 0) of one cluster, at the address clients
 * reach this front-end on.
 *
 * @param address {@code host:port} written into routes
 */
public record BrokerIdentity(String brokerName, String clusterName, String address) {

    /**
     * A queue of this broker as the JSON object fastjson writes for a {@code MessageQueue} (the key type of the offset
     * tables in topic and consume stats).
     */
    public String messageQueueJson(final String topic, final int queueId) {
        final StringBuilder sb = new StringBuilder("{\"brokerName\":");
        Json.string(sb, brokerName).append(",\"queueId\":").append(queueId).append(",\"topic\":");
        return Json.string(sb, topic).append('}').toString();
    }
}
