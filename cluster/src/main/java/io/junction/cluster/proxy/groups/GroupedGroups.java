package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.meta.GroupConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Consumer-group administration over store groups: the metadata group's configuration is the group's; a change is
 * made there and in every other store group (each applies it to the messages it hands out; one that missed it gets
 * it before its next POP, {@link GroupConfigSync}). Dead letters are re-driven in every group (each dead-letters
 * what it handed out).
 */
final class GroupedGroups implements Messaging.GroupAdmin {
    private final Map<String, Messaging> groups;
    private final Messaging metadata;

    /** @param groups every store group, metadata group first (a live view: groups added at run time count) */
    GroupedGroups(final Map<String, Messaging> groups) {
        this.groups = groups;
        this.metadata = groups.values().iterator().next();
    }

    private List<Messaging> others() {
        final List<Messaging> all = new ArrayList<>(groups.values());
        return all.subList(1, all.size());
    }

    @Override
    public CompletableFuture<GroupConfig> createOrUpdate(final GroupConfig config) {
        return metadata.groups().createOrUpdate(config).thenCompose(created -> everyOther(
                m -> m.groups().createOrUpdate(config)).thenApply(v -> created));
    }

    @Override
    public CompletableFuture<Boolean> delete(final String group) {
        return metadata.groups().delete(group).thenCompose(deleted -> everyOther(
                m -> m.groups().delete(group)).thenApply(v -> deleted));
    }

    @Override
    public CompletableFuture<Integer> redriveDeadLetters(final String group, final int max) {
        final List<CompletableFuture<Integer>> counts = new ArrayList<>();
        counts.add(metadata.groups().redriveDeadLetters(group, max));
        others().forEach(m -> counts.add(m.groups().redriveDeadLetters(group, max)));
        return CompletableFuture.allOf(counts.toArray(CompletableFuture[]::new))
                .thenApply(v -> counts.stream().mapToInt(CompletableFuture::join).sum());
    }

    private CompletableFuture<Void> everyOther(
            final Function<Messaging, CompletableFuture<?>> call) {
        return CompletableFuture.allOf(others().stream().map(call).toArray(CompletableFuture[]::new));
    }

    @Override
    public Optional<GroupConfig> get(final String group) {
        return metadata.groups().get(group);
    }

    @Override
    public Optional<GroupConfig> getOrCreate(final String group) {
        return metadata.groups().getOrCreate(group);
    }

    @Override
    public Collection<GroupConfig> list() {
        return metadata.groups().list();
    }
}
