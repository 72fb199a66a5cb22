package io.junction.cluster.proxy;

import io.junction.core.Messaging;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicNames;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumer-group administration on a proxy: changes go to the leader and into the mirror as it answered; reads are
 * the mirror's. A group unknown to the mirror that a consumer uses ({@link #getOrCreate}) is answered with the
 * defaults at once, as a store that creates groups on first use answers, while the leader is asked to create it (a
 * leader that does not create groups on use refuses it there, and the mirror drops it at its next snapshot).
 */
final class ProxyGroups implements Messaging.GroupAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyGroups.class);
    private final ProxyMessaging proxy;
    private final MetadataMirror mirror;

    ProxyGroups(final ProxyMessaging proxy, final MetadataMirror mirror) {
        this.proxy = proxy;
        this.mirror = mirror;
    }

    @Override
    public CompletableFuture<GroupConfig> createOrUpdate(final GroupConfig config) {
        return proxy.forward(m -> m.admin().createOrUpdateGroup(config)).thenApply(g -> {
            mirror.groups.putLocal(g.name(), g);
            return g;
        });
    }

    @Override
    public CompletableFuture<Boolean> delete(final String group) {
        return proxy.forward(m -> m.admin().deleteGroup(group)).thenApply(deleted -> {
            mirror.groups.removeLocal(group);
            return deleted;
        });
    }

    @Override
    public CompletableFuture<Integer> redriveDeadLetters(final String group, final int max) {
        return proxy.forward(m -> m.admin().redriveDeadLetters(group, max));
    }

    @Override
    public Optional<GroupConfig> get(final String group) {
        return mirror.groups.get(group);
    }

    @Override
    public Optional<GroupConfig> getOrCreate(final String group) {
        final Optional<GroupConfig> known = mirror.groups.get(group);
        if (known.isPresent() || !TopicNames.isValid(group)) {
            return known;
        }
        proxy.forward(m -> m.admin().getOrCreateGroup(group)).whenComplete((created, failure) -> {
            if (failure != null) {
                LOG.debug("Creating group {} on the leader failed; the next use asks again", group, failure);
            } else {
                created.ifPresent(g -> mirror.groups.putLocal(g.name(), g));
            }
        });
        return Optional.of(GroupConfig.of(group));
    }

    @Override
    public Collection<GroupConfig> list() {
        return mirror.groups.values();
    }
}
