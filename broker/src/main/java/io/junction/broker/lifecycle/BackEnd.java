package io.junction.broker.lifecycle;

import io.junction.broker.cluster.ClusterSetup;
import io.junction.broker.cluster.NodeRole;
import io.junction.broker.config.BrokerConfig;
import io.junction.cluster.ClusterNode;
import io.junction.cluster.ClusterSettings;
import io.junction.cluster.ReplicaMessaging;
import io.junction.cluster.proxy.groups.GroupedProxy;
import io.junction.cluster.proxy.groups.StoreGroup;
import io.junction.core.Messaging;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.StoreStats;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the front-ends sit on, by role: a local store (single node), a replica of a store group (roles {@code all}
 * and {@code store}), or a store group reached over the network (role {@code proxy}).
 *
 * @param role      the node's role
 * @param messaging the contract the front-ends (and admin pages) hold
 * @param stats     the local store's figures, null on a proxy (it has no store)
 * @param cluster   the replica, null on a single node and a proxy
 * @param settings  the replica's settings, null when there is no replica
 * @param proxy     the proxy's link to its store groups, null unless the role is proxy
 */
record BackEnd(NodeRole role, Messaging messaging, Supplier<StoreStats> stats, ClusterNode cluster,
               ClusterSettings settings, GroupedProxy proxy) {
    /** A cluster node (or proxy) starts its front-ends once a leader is elected; without one it refuses to start. */
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

    static BackEnd open(final BrokerConfig config, final StoreConfig storeConfig, final ResourceStack resources)
            throws BrokerStartException {
        final NodeRole role = ClusterSetup.role(config);
        if (role == NodeRole.PROXY) {
            final GroupedProxy proxy = resources.push("proxy", startProxy(config, storeConfig));
            return new BackEnd(role, proxy.messaging(), null, null, null, proxy);
        }
        final ClusterSettings settings = ClusterSetup.settings(config);
        if (settings == null) {
            final MessageStore local = resources.push("store", openStore(storeConfig));
            return new BackEnd(role, local, local::stats, null, null, null);
        }
        final ReplicaMessaging replica = new ReplicaMessaging();
        final ClusterNode cluster = resources.push("cluster node", startCluster(settings, storeConfig, replica));
        return new BackEnd(role, replica, () -> cluster.store().stats(), cluster, settings, null);
    }

    private static GroupedProxy startProxy(final BrokerConfig config, final StoreConfig storeConfig)
            throws BrokerStartException {
        final List<StoreGroup> groups = ClusterSetup.storeGroups(config);
        try {
            return GroupedProxy.start(groups, storeConfig.maxMessageSize(), SETTLE_TIMEOUT);
        } catch (final RuntimeException e) {
            throw new BrokerStartException(Broker.describe(e), e);
        }
    }

    private static ClusterNode startCluster(final ClusterSettings settings, final StoreConfig storeConfig,
                                            final ReplicaMessaging replica) throws BrokerStartException {
        try {
            final ClusterNode node = ClusterNode.start(settings, storeConfig, replica);
            try {
                node.awaitSettled(SETTLE_TIMEOUT);
            } catch (final RuntimeException e) {
                node.close();
                throw e;
            }
            return node;
        } catch (final RuntimeException e) {
            throw new BrokerStartException(Broker.describe(e), e);
        }
    }

    private static MessageStore openStore(final StoreConfig config) throws BrokerStartException {
        try {
            return MessageStore.open(config);
        } catch (final RuntimeException e) {
            throw new BrokerStartException(Broker.describe(e), e);
        }
    }

    /** Whether the front-ends' metadata is this process's own (a single node), not replicated or mirrored. */
    boolean single() {
        return cluster == null && proxy == null;
    }
}
