package io.junction.cluster.proxy;

import io.junction.cluster.contract.MirrorSnapshot;
import io.junction.cluster.contract.MirrorSnapshot.QueueRange;
import io.junction.core.engine.MessageStore;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.MembershipListener;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.KvConfig;
import io.junction.core.meta.MetadataCodecs;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A proxy's copy of its store group's metadata: topics, groups, key-value configs, consumer offsets, every queue's
 * offset range, the live consumer clients and the retention. The contract's synchronous reads are answered here, from
 * memory, on whatever thread asks (an event loop included).
 *
 * <p>How current it is: {@link ProxyNode} replaces it with the leader's snapshot every
 * {@link ProxyNode#MIRROR_INTERVAL} (so a change made through another proxy or node shows within about that); a
 * change made through this proxy shows at once, as the leader answered it. Queue ranges also move up with what sends
 * and pulls through this proxy report. Consumer clients are the leader's list plus the clients whose heartbeats this
 * proxy forwarded (until they unregister or stop beating for {@link #LOCAL_CLIENT_EXPIRY}).
 */
final class MetadataMirror {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataMirror.class);
    /** A client of this proxy that sent no heartbeat this long is dropped from its view (RocketMQ: 120 s). */
    static final Duration LOCAL_CLIENT_EXPIRY = Duration.ofSeconds(120);

    final MirroredTable<String, TopicConfig> topics = new MirroredTable<>();
    final MirroredTable<String, GroupConfig> groups = new MirroredTable<>();
    /** Key: {@link KvConfig#id}. */
    final MirroredTable<String, KvConfig> kv = new MirroredTable<>();
    final MirroredTable<ConsumerOffsets.Key, Long> offsets = new MirroredTable<>();
    private final Map<QueueKey, long[]> queues = new ConcurrentHashMap<>();
    private volatile Map<String, List<ConsumerClient>> leaderClients = Map.of();
    private final Map<String, Map<String, ConsumerClient>> localClients = new ConcurrentHashMap<>();
    private final List<MembershipListener> listeners = new CopyOnWriteArrayList<>();
    private volatile long retentionMillis = Duration.ofDays(3).toMillis();
    private volatile long loadedAtMillis = -1;

    private record QueueKey(String topic, int queueId) {
    }

    /** Takes the leader's snapshot, asked for at {@code askedAt} ({@link System#nanoTime}). */
    void apply(final MirrorSnapshot snapshot, final long askedAt) throws IOException {
        final Map<String, byte[]> tables = snapshot.tables();
        topics.replace(byName(DurableTable.readExport(table(tables, MessageStore.TOPICS_TABLE),
                MetadataCodecs.TOPIC), TopicConfig::name), askedAt);
        groups.replace(byName(DurableTable.readExport(table(tables, MessageStore.GROUPS_TABLE),
                MetadataCodecs.GROUP), GroupConfig::name), askedAt);
        kv.replace(byName(DurableTable.readExport(table(tables, MessageStore.KV_TABLE), KvConfig.CODEC),
                KvConfig::id), askedAt);
        offsets.replace(ConsumerOffsets.readExport(table(tables, MessageStore.OFFSETS_TABLE)), askedAt);
        final Set<QueueKey> present = new HashSet<>();
        for (QueueRange q : snapshot.queues()) {
            final QueueKey key = new QueueKey(q.topic(), q.queueId());
            present.add(key);
            queues.put(key, new long[] {q.min(), q.max()});
        }
        queues.keySet().retainAll(present);
        final Map<String, List<ConsumerClient>> previous = leaderClients;
        leaderClients = snapshot.clients();
        retentionMillis = snapshot.retentionMillis();
        loadedAtMillis = System.currentTimeMillis();
        final Set<String> changed = new HashSet<>();
        for (String group : union(previous.keySet(), snapshot.clients().keySet())) {
            if (!ids(previous.get(group)).equals(ids(snapshot.clients().get(group)))) {
                changed.add(group);
            }
        }
        changed.forEach(this::membershipChanged);
    }

    private static byte[] table(final Map<String, byte[]> tables, final String name) throws IOException {
        final byte[] table = tables.get(name);
        if (table == null) {
            throw new IOException("the snapshot has no " + name + " table");
        }
        return table;
    }

    private static <V> Map<String, V> byName(final List<V> values, final Function<V, String> name) {
        final Map<String, V> map = new HashMap<>();
        for (V v : values) {
            map.put(name.apply(v), v);
        }
        return map;
    }

    private static Set<String> union(final Set<String> a, final Set<String> b) {
        final Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static Set<String> ids(final List<ConsumerClient> clients) {
        final Set<String> ids = new HashSet<>();
        if (clients != null) {
            clients.forEach(c -> ids.add(c.clientId()));
        }
        return ids;
    }

    /** Whether a snapshot was ever applied. */
    boolean loaded() {
        return loadedAtMillis >= 0;
    }

    /** Milliseconds since the last snapshot, -1 when none. */
    long ageMillis() {
        final long at = loadedAtMillis;
        return at < 0 ? -1 : System.currentTimeMillis() - at;
    }

    Duration retention() {
        return Duration.ofMillis(retentionMillis);
    }

    // ---- queues ----

    long minOffset(final String topic, final int queueId) {
        final long[] range = queues.get(new QueueKey(topic, queueId));
        return range == null ? 0 : range[0];
    }

    long maxOffset(final String topic, final int queueId) {
        final long[] range = queues.get(new QueueKey(topic, queueId));
        return range == null ? 0 : range[1];
    }

    /** A range a read or a send reported: the end only moves forward, the start to what the store said. */
    void observe(final String topic, final int queueId, final long min, final long max) {
        queues.compute(new QueueKey(topic, queueId), (k, range) -> {
            if (range == null) {
                return new long[] {Math.max(0, min), max};
            }
            return new long[] {min >= 0 ? min : range[0], Math.max(range[1], max)};
        });
    }

    // ---- offsets ----

    long queryOffset(final String group, final String topic, final int queueId) {
        return offsets.get(new ConsumerOffsets.Key(group, topic, queueId)).orElse(-1L);
    }

    void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        offsets.putLocal(new ConsumerOffsets.Key(group, topic, queueId), offset);
    }

    // ---- kv ----

    Map<String, String> kvList(final String namespace) {
        final Map<String, String> items = new HashMap<>();
        for (KvConfig c : kv.values()) {
            if (c.namespace().equals(namespace)) {
                items.put(c.key(), c.value());
            }
        }
        return items;
    }

    // ---- consumer clients ----

    /** The group's live clients: the leader's list and this proxy's own, sorted by id. */
    List<ConsumerClient> clients(final String group) {
        final Map<String, ConsumerClient> all = new HashMap<>();
        for (ConsumerClient c : leaderClients.getOrDefault(group, List.of())) {
            all.put(c.clientId(), c);
        }
        final Map<String, ConsumerClient> local = localClients.get(group);
        if (local != null) {
            final long expired = System.currentTimeMillis() - LOCAL_CLIENT_EXPIRY.toMillis();
            local.values().removeIf(c -> c.lastHeartbeat() < expired);
            for (ConsumerClient c : local.values()) {
                all.put(c.clientId(), c);
            }
        }
        final List<ConsumerClient> sorted = new ArrayList<>(all.values());
        sorted.sort(Comparator.comparing(ConsumerClient::clientId));
        return sorted;
    }

    void heartbeat(final String group, final String clientId,
                   final Map<String, ConsumerClient.Subscription> subscriptions, final boolean broadcast) {
        final boolean known = clients(group).stream().anyMatch(c -> c.clientId().equals(clientId));
        localClients.computeIfAbsent(group, g -> new ConcurrentHashMap<>()).put(clientId,
                new ConsumerClient(clientId, subscriptions, broadcast, System.currentTimeMillis()));
        if (!known) {
            membershipChanged(group);
        }
    }

    void unregister(final String group, final String clientId) {
        final Map<String, ConsumerClient> local = localClients.get(group);
        if (local != null && local.remove(clientId) != null) {
            // The leader's list may still hold it until the next snapshot: drop it there too.
            final Map<String, List<ConsumerClient>> current = new HashMap<>(leaderClients);
            current.computeIfPresent(group, (g, list) -> list.stream()
                    .filter(c -> !c.clientId().equals(clientId)).toList());
            leaderClients = current;
            membershipChanged(group);
        }
    }

    /** The clients whose heartbeats this proxy forwards, by group (to tell a new leader at once). */
    Map<String, List<ConsumerClient>> localClients() {
        final Map<String, List<ConsumerClient>> all = new HashMap<>();
        localClients.forEach((group, clients) -> {
            if (!clients.isEmpty()) {
                all.put(group, List.copyOf(clients.values()));
            }
        });
        return all;
    }

    void addListener(final MembershipListener listener) {
        listeners.add(listener);
    }

    private void membershipChanged(final String group) {
        for (MembershipListener l : listeners) {
            try {
                l.membershipChanged(group);
            } catch (RuntimeException e) {
                LOG.warn("A membership listener failed for group {}", group, e);
            }
        }
    }
}
