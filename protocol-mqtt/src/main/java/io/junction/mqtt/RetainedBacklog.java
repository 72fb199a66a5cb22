package io.junction.mqtt;

import io.netty.handler.codec.mqtt.MqttProperties;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Retained messages new subscriptions still have to get: a wildcard may match very many, so they become deliveries
 * only as the session's queue drains, and readers wait until they are through (retained first). What readers offer
 * meanwhile is held behind them: it is newer, so it goes out after them.
 */
final class RetainedBacklog {
    private record RetainedSend(RetainedStore.Retained message, int qos, List<Integer> ids) {
    }

    private final ArrayDeque<RetainedSend> backlog = new ArrayDeque<>();
    private final ArrayDeque<Delivery> held = new ArrayDeque<>();

    boolean isEmpty() {
        return backlog.isEmpty();
    }

    /** The retained messages a new subscription gets (QoS capped by it, its identifier added). */
    void add(final Subscription sub, final List<RetainedStore.Retained> matching) {
        final List<Integer> ids = sub.subscriptionId() > 0 ? List.of(sub.subscriptionId()) : List.of();
        for (RetainedStore.Retained r : matching) {
            backlog.add(new RetainedSend(r, sub.qos(), ids));
        }
    }

    /** A delivery a reader offered while the backlog lasts. */
    void hold(final Delivery d) {
        held.add(d);
    }

    void clear() {
        backlog.clear();
        held.clear();
    }

    /**
     * Hands {@code room} retained messages at most to {@code queue} as deliveries (skipping those whose SUB the
     * reader lacks and expired ones); once the backlog is through, what was held behind it follows.
     */
    void take(final int room, final MqttConnection reader, final MqttNamespace namespace,
              final Consumer<Delivery> queue) {
        final long now = System.currentTimeMillis();
        int left = room;
        while (left > 0 && !backlog.isEmpty()) {
            final RetainedSend r = backlog.poll();
            if (reader != null && !reader.mayRead(r.message().coreTopic())) {
                continue; // a wildcard reaches a topic whose SUB the user lacks
            }
            final MqttMessageMapping.Outbound out = MqttMessageMapping.fromCore(
                    namespace.local(r.message().coreTopic()), r.message().properties(), r.message().body(), now);
            if (out.expiresAt() > 0 && out.expiresAt() <= now) {
                continue;
            }
            queue.accept(new Delivery(out.topic(), out.payload(), Math.min(r.qos(), out.qos()), true,
                    withIds(out.properties(), r.ids()), out.expiresAt(), null));
            left--;
        }
        if (backlog.isEmpty()) {
            held.forEach(queue);
            held.clear();
        }
    }

    /** The properties plus subscription identifiers: a copy when there are any (mappings are shared). */
    static MqttProperties withIds(final MqttProperties props, final List<Integer> ids) {
        if (ids.isEmpty()) {
            return props;
        }
        final MqttProperties copy = new MqttProperties();
        for (MqttProperties.MqttProperty<?> p : props.listAll()) {
            copy.add(p);
        }
        for (int id : ids) {
            copy.add(new MqttProperties.IntegerProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER, id));
        }
        return copy;
    }
}
