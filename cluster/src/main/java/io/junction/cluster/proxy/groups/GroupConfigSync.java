package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.meta.GroupConfig;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Consumer groups are metadata, kept in the metadata group; a store group that hands out a topic's messages applies
 * the group's configuration itself (FIFO order, in-place redelivery, retry limits), so before it serves a group it
 * gets the metadata group's configuration when its own differs (created elsewhere, or changed since). Reads are
 * mirrors (memory); only a difference costs a call.
 */
final class GroupConfigSync {
    private final Messaging metadata;
    private final Function<String, Messaging> groups;

    GroupConfigSync(final Messaging metadata, final Function<String, Messaging> groups) {
        this.metadata = metadata;
        this.groups = groups;
    }

    CompletableFuture<Void> ensure(final String storeGroup, final String consumerGroup) {
        final Messaging target = groups.apply(storeGroup);
        if (target == metadata) {
            return CompletableFuture.completedFuture(null);
        }
        final Optional<GroupConfig> wanted = metadata.groups().getOrCreate(consumerGroup);
        if (wanted.isEmpty() || target.groups().get(consumerGroup).equals(wanted)) {
            return CompletableFuture.completedFuture(null);
        }
        return target.groups().createOrUpdate(wanted.get()).thenApply(g -> null);
    }
}
