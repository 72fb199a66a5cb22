package io.junction.core.group;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * Which clients consume for which group, kept alive by heartbeats, for client-side rebalancing (RocketMQ 4-style
 * consumers divide a topic's queues among the group's clients, so each needs the same sorted client list). A
 * client whose heartbeats stop is dropped after the expiry; listeners hear of every membership change.
 */
public final class ConsumerRegistry {
    private final Map<String, Map<String, ConsumerClient>> groups = new ConcurrentHashMap<>();
    private final List<MembershipListener> listeners = new CopyOnWriteArrayList<>();
    private final LongSupplier clock;
    private final long expiryMillis;

    public ConsumerRegistry(final LongSupplier clock, final Duration expiry) {
        this.clock = clock;
        this.expiryMillis = expiry.toMillis();
    }

    public void addListener(final MembershipListener listener) {
        listeners.add(listener);
    }

    /** Records a heartbeat; a new client, or changed subscriptions, notify the listeners. */
    public void heartbeat(final String group, final String clientId,
                          final Map<String, ConsumerClient.Subscription> subscriptions, final boolean broadcast) {
        final ConsumerClient client = new ConsumerClient(clientId, subscriptions, broadcast, clock.getAsLong());
        final ConsumerClient previous = groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .put(clientId, client);
        if (previous == null || !previous.subscriptions().equals(client.subscriptions())) {
            notifyChanged(group);
        }
    }

    /** Removes a client (it shut down). */
    public void unregister(final String group, final String clientId) {
        final Map<String, ConsumerClient> clients = groups.get(group);
        if (clients != null && clients.remove(clientId) != null) {
            notifyChanged(group);
        }
    }

    /** The group's live clients, sorted by id (the order rebalancing relies on). */
    public List<ConsumerClient> clients(final String group) {
        final Map<String, ConsumerClient> clients = groups.get(group);
        if (clients == null) {
            return List.of();
        }
        final long oldest = clock.getAsLong() - expiryMillis;
        final List<ConsumerClient> live = new ArrayList<>();
        for (ConsumerClient c : clients.values()) {
            if (c.lastHeartbeat() >= oldest) {
                live.add(c);
            }
        }
        live.sort(Comparator.comparing(ConsumerClient::clientId));
        return live;
    }

    /** Groups with at least one client. */
    public List<String> groups() {
        return groups.entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey).sorted()
                .toList();
    }

    /** Drops clients whose heartbeats stopped; run periodically. */
    public void expire() {
        final long oldest = clock.getAsLong() - expiryMillis;
        groups.forEach((group, clients) -> {
            if (clients.values().removeIf(c -> c.lastHeartbeat() < oldest)) {
                notifyChanged(group);
            }
        });
    }

    private void notifyChanged(final String group) {
        for (MembershipListener l : listeners) {
            l.membershipChanged(group);
        }
    }
}
