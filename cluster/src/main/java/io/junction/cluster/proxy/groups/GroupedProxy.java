package io.junction.cluster.proxy.groups;

import io.junction.cluster.ClusterStartException;
import io.junction.cluster.proxy.ProxyNode;
import io.junction.cluster.proxy.ProxyStatus;
import io.junction.core.Messaging;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A proxy over store groups: one {@link ProxyNode} per group (each follows its group's leader and mirrors its
 * metadata), the front-ends holding {@link #messaging()}, a {@link GroupedMessaging} over them. With one group and no
 * placements every call goes to that group as before groups existed.
 *
 * <p>Groups come from {@code cluster.store-groups} (fixed, in order: the first is the metadata group) and from
 * {@link #addGroup} at run time, recorded in the metadata group ({@link RuntimeGroupBook}). One thread of its own
 * connects groups (a connection waits for a leader: never on a caller's event loop) and, every
 * {@link #SYNC_INTERVAL}, follows what the record says: groups another proxy added are connected, those it removed
 * forgotten, retirements applied.
 */
public final class GroupedProxy implements AutoCloseable {
    /** How often the recorded groups are compared with those this proxy reaches. */
    public static final Duration SYNC_INTERVAL = Duration.ofSeconds(1);
    /** How long adding a group waits for its leader before refusing it as unreachable. */
    static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(GroupedProxy.class);

    private final List<String> configured;
    private final Map<String, ProxyNode> nodes = new ConcurrentHashMap<>();
    private final GroupedMessaging messaging;
    private final RuntimeGroupBook recorded;
    /** Replaces the metadata mirror with the leader's metadata now; completes when done. */
    private final Supplier<CompletableFuture<Boolean>> refreshMetadata;
    private final int maxMessageSize;
    /** Connects, adds and removes groups, one change at a time. */
    private final ScheduledExecutorService changes = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "junction-proxy-groups");
        t.setDaemon(true);
        return t;
    });

    private GroupedProxy(final Map<String, ProxyNode> configuredNodes, final int maxMessageSize) {
        this.configured = List.copyOf(configuredNodes.keySet());
        this.nodes.putAll(configuredNodes);
        this.maxMessageSize = maxMessageSize;
        final Map<String, Messaging> groups = new LinkedHashMap<>();
        configuredNodes.forEach((name, node) -> groups.put(name, node.messaging()));
        final ProxyNode metadataNode = configuredNodes.values().iterator().next();
        this.messaging = new GroupedMessaging(groups, metadataNode::refreshMirrorNow);
        this.recorded = new RuntimeGroupBook(metadataNode.messaging().kvConfigs());
        this.refreshMetadata = metadataNode::refreshMirrorNow;
    }

    /**
     * Reaches every configured group (its leader and a first metadata snapshot), in order, then the groups recorded
     * as added at run time (one that does not answer is tried again at every sync rather than failing the start).
     *
     * @throws ClusterStartException when a configured group's leader does not answer in time
     */
    public static GroupedProxy start(final List<StoreGroup> groups, final int maxMessageSize,
                                     final Duration settleTimeout) {
        if (groups.size() > RuntimeGroupBook.FIRST_NUMBER) {
            // Configured groups are numbered by their place; numbers from FIRST_NUMBER are for groups added later.
            throw new ClusterStartException("cluster.store-groups names " + groups.size() + " groups; at most "
                    + RuntimeGroupBook.FIRST_NUMBER + " are supported (add more at run time)");
        }
        final Map<String, ProxyNode> nodes = new LinkedHashMap<>();
        try {
            for (StoreGroup group : groups) {
                nodes.put(group.name(), ProxyNode.start(group.contracts(), maxMessageSize, settleTimeout));
            }
        } catch (RuntimeException e) {
            nodes.values().forEach(ProxyNode::close);
            throw e;
        }
        final GroupedProxy proxy = new GroupedProxy(nodes, maxMessageSize);
        proxy.changes.submit(proxy::sync);
        proxy.changes.scheduleWithFixedDelay(proxy::sync, SYNC_INTERVAL.toMillis(), SYNC_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
        return proxy;
    }

    public Messaging messaging() {
        return messaging;
    }

    /**
     * Scales a topic over the store groups (see {@link GroupedMessaging#scale}): {@code queues} logical queues
     * (fewer than open now closes the last ones), their writes on {@code targets}.
     */
    public CompletableFuture<TopicPlacement> scale(final String topic, final int queues, final List<String> targets) {
        return messaging.scale(topic, queues, targets);
    }

    /**
     * Adds a store group at run time: reaches its leader, records it in the metadata group (every proxy follows within
     * {@link #SYNC_INTERVAL} plus a mirror interval) and serves it here at once. Fails with {@link GroupChangeRefused}:
     * DUPLICATE for a name configured or recorded already, UNREACHABLE when no leader answers within
     * {@link #JOIN_TIMEOUT}.
     */
    public CompletableFuture<Void> addGroup(final StoreGroup group) {
        return CompletableFuture.runAsync(() -> {
            refreshRecord();
            if (nodes.containsKey(group.name()) || recorded.all().containsKey(group.name())) {
                throw new GroupChangeRefused(GroupChangeRefused.Reason.DUPLICATE,
                        "store group " + group.name() + " exists already");
            }
            final ProxyNode node;
            try {
                node = ProxyNode.start(group.contracts(), maxMessageSize, JOIN_TIMEOUT);
            } catch (ClusterStartException e) {
                throw new GroupChangeRefused(GroupChangeRefused.Reason.UNREACHABLE, "store group " + group.name()
                        + " is unreachable: no leader of " + group.contracts() + " answered within "
                        + JOIN_TIMEOUT.toSeconds() + " s");
            }
            final int number;
            try {
                number = recorded.claimNumber(group.name());
            } catch (RuntimeException e) {
                node.close();
                throw e;
            }
            try {
                if (!recorded.create(new RuntimeGroupBook.Recorded(group, number, false)).join()) {
                    throw new GroupChangeRefused(GroupChangeRefused.Reason.DUPLICATE,
                            "store group " + group.name() + " was added by another proxy meanwhile");
                }
            } catch (RuntimeException e) {
                recorded.releaseNumber(number);
                node.close();
                throw e;
            }
            serve(group.name(), node, number, false);
        }, changes);
    }

    /**
     * Removes a store group added at run time. Refused (IN_USE, naming the topics) while a segment there takes writes:
     * scale those topics elsewhere first. A group still holding sealed segments with messages is <em>retired</em>:
     * nothing new is placed there and its segments are read until they are consumed and expire; removing it again
     * once nothing there is readable forgets it. Answers whether the group was forgotten (false: retired).
     */
    public CompletableFuture<GroupUse> removeGroup(final String name) {
        return CompletableFuture.supplyAsync(() -> {
            if (configured.contains(name)) {
                throw new GroupChangeRefused(GroupChangeRefused.Reason.CONFIGURED, "store group " + name
                        + " is configured in cluster.store-groups: remove it there");
            }
            refreshRecord();
            final RuntimeGroupBook.Recorded record = recorded.all().get(name);
            if (record == null && !nodes.containsKey(name)) {
                throw new GroupChangeRefused(GroupChangeRefused.Reason.UNKNOWN, "no store group " + name);
            }
            final GroupUse use = messaging.use(name);
            if (!use.openIn().isEmpty()) {
                throw new GroupChangeRefused(GroupChangeRefused.Reason.IN_USE, "store group " + name
                        + " takes the writes of topics " + use.openIn() + ": scale them onto other groups first");
            }
            if (!use.sealedIn().isEmpty()) {
                if (record != null && !record.retired()) {
                    recorded.put(record.retire()).join();
                }
                messaging.setRetired(name, true);
            } else {
                recorded.delete(name).join();
                if (record != null) {
                    recorded.releaseNumber(record.number()).join();
                }
                forget(name);
            }
            return use;
        }, changes);
    }

    /**
     * Brings the record up to the leader's now: the mirror may be a snapshot interval old, and a group another proxy
     * added or retired within it would otherwise be added again (its record overwritten, perhaps with other
     * addresses) or retired from a stale view. Runs on the changes thread, never on a caller's event loop.
     */
    private void refreshRecord() {
        refreshMetadata.get().join();
    }

    /** Follows the record: connects groups added elsewhere, forgets those removed, applies retirements. */
    private void sync() {
        try {
            final Map<String, RuntimeGroupBook.Recorded> wanted = recorded.all();
            for (RuntimeGroupBook.Recorded r : wanted.values()) {
                final String name = r.group().name();
                if (configured.contains(name)) {
                    continue;
                }
                if (nodes.containsKey(name) && messaging.number(name) != r.number()) {
                    // Forgotten and added again under this name (another number) between two syncs.
                    forget(name);
                }
                if (nodes.containsKey(name)) {
                    messaging.setRetired(name, r.retired());
                    continue;
                }
                try {
                    serve(name, ProxyNode.start(r.group().contracts(), maxMessageSize, JOIN_TIMEOUT), r.number(),
                            r.retired());
                } catch (ClusterStartException e) {
                    LOG.warn("Store group {} recorded in the metadata group is unreachable; trying again: {}", name,
                            e.getMessage());
                }
            }
            for (String name : Set.copyOf(nodes.keySet())) {
                if (!configured.contains(name) && !wanted.containsKey(name)) {
                    forget(name);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("Following the recorded store groups failed; trying again", e);
        }
    }

    private void serve(final String name, final ProxyNode node, final int number, final boolean retired) {
        nodes.put(name, node);
        messaging.addGroup(name, node.messaging(), number, retired);
        LOG.info("Store group {} (number {}) added{}", name, number,
                retired ? " (retired: its sealed segments are read)" : "");
    }

    private void forget(final String name) {
        messaging.removeGroup(name);
        final ProxyNode node = nodes.remove(name);
        if (node != null) {
            node.close();
        }
        LOG.info("Store group {} removed", name);
    }

    /** Whether every group's leader is known and its metadata recent. */
    public boolean reachesLeader() {
        return nodes.values().stream().allMatch(ProxyNode::reachesLeader);
    }

    /**
     * What {@code GET /cluster} shows: with one group and none added, the group's {@link ProxyStatus}; otherwise a
     * {@link GroupedProxyStatus} (each group's status and every placed topic's placement).
     */
    public Object status() {
        final List<String> names = messaging.groupNames();
        return names.size() == 1 ? nodes.get(names.get(0)).status() : groupsStatus();
    }

    /** Each group's status and every placed topic's placement, however many groups there are. */
    public GroupedProxyStatus groupsStatus() {
        final List<String> names = messaging.groupNames();
        final List<GroupedProxyStatus.Group> groups = new ArrayList<>();
        for (String name : names) {
            final ProxyNode node = nodes.get(name);
            if (node != null) {
                groups.add(new GroupedProxyStatus.Group(name, node.status(), !configured.contains(name),
                        messaging.retired(name)));
            }
        }
        return new GroupedProxyStatus("PROXY", reachesLeader(), groups, messaging.placements());
    }

    @Override
    public void close() {
        changes.shutdownNow();
        messaging.close();
        nodes.values().forEach(ProxyNode::close);
    }
}
