package io.junction.cluster.proxy;

import io.junction.core.Messaging;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.MembershipListener;
import io.junction.core.group.QueueLag;
import io.junction.core.meta.ConsumerOffsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumer membership on a proxy. Heartbeats and departures go to the leader, so every proxy and node sees one
 * membership, and into the mirror at once, so this proxy's clients see themselves before the next snapshot. Listeners
 * hear of changes this proxy sees: its own clients coming and going, and differences between snapshots.
 *
 * <p>Queue locks (orderly consumers) are the leader's; the contract's lock call is synchronous, so a proxy answers
 * with the queues the leader granted at the client's previous lock call and asks the leader again in the background:
 * a client's first lock of a queue is granted one lock round later (RocketMQ clients retry within a second when a
 * queue is not locked yet).
 */
final class ProxyConsumers implements Messaging.Consumers {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyConsumers.class);
    private final ProxyMessaging proxy;
    private final MetadataMirror mirror;
    private final Map<LockKey, Set<Integer>> granted = new ConcurrentHashMap<>();

    private record LockKey(String group, String clientId, String topic) {
    }

    ProxyConsumers(final ProxyMessaging proxy, final MetadataMirror mirror) {
        this.proxy = proxy;
        this.mirror = mirror;
    }

    @Override
    public void heartbeat(final String group, final String clientId,
                          final Map<String, ConsumerClient.Subscription> subscriptions, final boolean broadcast) {
        mirror.heartbeat(group, clientId, subscriptions, broadcast);
        proxy.forward(m -> m.admin().heartbeat(group, clientId, subscriptions, broadcast))
                .whenComplete((v, e) -> logFailure("heartbeat", group, e));
    }

    /**
     * Sends this proxy's clients' last heartbeats to the leader now: a new leader knows no clients (membership is
     * its memory, not replicated), and theirs would come only with their next beat (RocketMQ: every 30 s).
     */
    void replayHeartbeats() {
        mirror.localClients().forEach((group, clients) -> {
            for (ConsumerClient c : clients) {
                proxy.forward(m -> m.admin().heartbeat(group, c.clientId(), c.subscriptions(), c.broadcast()))
                        .whenComplete((v, e) -> logFailure("heartbeat replay", group, e));
            }
        });
    }

    @Override
    public void unregister(final String group, final String clientId) {
        mirror.unregister(group, clientId);
        granted.keySet().removeIf(k -> k.group().equals(group) && k.clientId().equals(clientId));
        proxy.forward(m -> m.admin().unregister(group, clientId))
                .whenComplete((v, e) -> logFailure("unregister", group, e));
    }

    private static void logFailure(final String what, final String group, final Throwable e) {
        if (e != null) {
            LOG.debug("Forwarding a {} of group {} failed (the client repeats it)", what, group, e);
        }
    }

    @Override
    public List<ConsumerClient> clients(final String group) {
        return mirror.clients(group);
    }

    @Override
    public void addListener(final MembershipListener listener) {
        mirror.addListener(listener);
    }

    @Override
    public Set<Integer> lockQueues(final String group, final String clientId, final String topic,
                                   final Set<Integer> queues) {
        final LockKey key = new LockKey(group, clientId, topic);
        // Read before asking: a fast answer must not turn this call into a synchronous grant (one round later, always).
        final Set<Integer> held = new HashSet<>(granted.getOrDefault(key, Set.of()));
        held.retainAll(queues);
        proxy.forward(m -> m.admin().lockQueues(group, clientId, topic, queues)).whenComplete((grants, e) -> {
            if (e == null) {
                granted.merge(key, Set.copyOf(grants), (old, now) -> {
                    final Set<Integer> all = new HashSet<>(old);
                    all.removeAll(queues);
                    all.addAll(now);
                    return Set.copyOf(all);
                });
            } else {
                logFailure("queue lock", group, e);
            }
        });
        return held;
    }

    @Override
    public void unlockQueues(final String group, final String clientId, final String topic,
                             final Set<Integer> queues) {
        granted.computeIfPresent(new LockKey(group, clientId, topic), (k, held) -> {
            final Set<Integer> left = new HashSet<>(held);
            left.removeAll(queues);
            return left.isEmpty() ? null : Set.copyOf(left);
        });
        proxy.forward(m -> m.admin().unlockQueues(group, clientId, topic, queues))
                .whenComplete((v, e) -> logFailure("queue unlock", group, e));
    }

    @Override
    public SortedSet<String> committedTopics(final String group) {
        final SortedSet<String> topics = new TreeSet<>();
        for (ConsumerOffsets.Key k : mirror.offsets.view().keySet()) {
            if (k.group().equals(group)) {
                topics.add(k.topic());
            }
        }
        return topics;
    }

    @Override
    public CompletableFuture<List<QueueLag>> lag(final String group, final String topic) {
        return proxy.forward(m -> m.admin().lag(group, topic));
    }

    @Override
    public CompletableFuture<Map<Integer, Long>> resetOffsets(final String group, final String topic,
                                                              final long timestamp) {
        return proxy.forward(m -> m.admin().resetOffsets(group, topic, timestamp)).thenApply(offsets -> {
            offsets.forEach((queue, offset) -> mirror.commitOffset(group, topic, queue, offset));
            return offsets;
        });
    }
}
