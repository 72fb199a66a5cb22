package io.junction.core.group;

import java.util.Map;

/**
 * A consumer client as its heartbeats describe it.
 *
 * @param clientId      the client's id, unique per process
 * @param subscriptions topic → filter (type and expression)
 * @param broadcast     whether the client consumes in broadcast mode (every client gets every message)
 * @param lastHeartbeat epoch ms of its last heartbeat
 */
public record ConsumerClient(String clientId, Map<String, Subscription> subscriptions, boolean broadcast,
                             long lastHeartbeat) {
    public ConsumerClient {
        subscriptions = Map.copyOf(subscriptions);
    }

    /** A subscription: filter type ("TAG" or "SQL92") and expression. */
    public record Subscription(String type, String expression) {
    }
}
