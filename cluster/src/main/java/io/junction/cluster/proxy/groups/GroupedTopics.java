package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Topic administration over store groups. A topic's configuration is the metadata group's (its queue count is the
 * logical one routes show). Creating a topic places its queues once, round robin over the groups in their configured
 * order ({@link TopicPlacement#spread}); more queues later are placed the same way, existing ones never move. The
 * order of a creation: the topic on every other group holding a segment (with the physical queues it needs), then its
 * placement, then the topic in the metadata group, so a topic a route shows always has both. Placement is
 * deterministic, so two proxies creating one topic at once write the same one. The configured queue count is never
 * below the placement's ({@link ConfiguredQueueCount}): a smaller count asked for keeps the placed queues.
 *
 * <p>Topics the core and the front-ends keep for themselves (retry, dead-letter, transaction, {@code rmq_sys_}
 * topics, compacted state topics) stay wholly on the metadata group.
 */
final class GroupedTopics implements Messaging.TopicAdmin {
    private final Map<String, Messaging> groups;
    private final List<String> names;
    private final String metadataGroup;
    private final Messaging metadata;
    private final PlacementBook book;
    private final Supplier<CompletableFuture<Boolean>> metadataRefresh;
    private final ConfiguredQueueCount counts;

    /**
     * @param groups the store groups (a live view); new topics spread over those there are now, the configured ones:
     *               groups added at run time get segments by scaling only, so every proxy places a new topic alike
     *               whether or not it has learnt of them yet
     * @param metadataRefresh refreshes the metadata group's mirror from its leader now (after a lost race)
     */
    GroupedTopics(final Map<String, Messaging> groups, final PlacementBook book,
                  final Supplier<CompletableFuture<Boolean>> metadataRefresh) {
        this.metadataRefresh = metadataRefresh;
        this.groups = groups;
        this.names = List.copyOf(groups.keySet());
        this.metadataGroup = names.get(0);
        this.metadata = groups.get(metadataGroup);
        this.book = book;
        this.counts = new ConfiguredQueueCount(metadata, book, metadataRefresh);
    }

    static boolean placeable(final TopicConfig config) {
        final String name = config.name();
        return !SystemNames.isRetryOrDeadLetter(name) && !SystemNames.isTransactionTopic(name)
                && !name.toLowerCase(Locale.ROOT).startsWith("rmq_sys_") && !config.compacted();
    }

    @Override
    public CompletableFuture<TopicConfig> createOrUpdate(final TopicConfig config) {
        if (!placeable(config) || names.size() == 1) {
            return metadata.topics().createOrUpdate(config);
        }
        // The count written follows the placement (which keeps every placed queue), also against a concurrent write.
        return place(config, 1).thenCompose(v -> counts.write(config));
    }

    @Override
    public CompletableFuture<TopicConfig> createIfAbsent(final TopicConfig config) {
        final Optional<TopicConfig> known = metadata.topics().get(config.name());
        if (known.isPresent() || !placeable(config) || names.size() == 1) {
            return metadata.topics().createIfAbsent(config);
        }
        // Another proxy may have created it meanwhile with fewer queues than the placement now has.
        return place(config, 1).thenCompose(v -> metadata.topics().createIfAbsent(config))
                .thenCompose(counts::ensure);
    }

    /** Places the topic's queues (keeping those placed), creates it where its segments are, records the placement. */
    private CompletableFuture<Void> place(final TopicConfig config, final int attempt) {
        final String topic = config.name();
        final PlacementBook.Versioned read = book.read(topic);
        TopicPlacement before = read.placement();
        if (before == null) {
            // A topic from before placements (or a one-group proxy) lives on the metadata group: it stays there.
            before = metadata.topics().get(topic)
                    .map(t -> TopicPlacement.onOneGroup(topic, t.queueCount(), metadataGroup)).orElse(null);
        }
        final int queues = Math.max(config.queueCount(), before == null ? 0 : before.queueCount());
        final TopicPlacement placement = TopicPlacement.spread(topic, queues, names, before);
        final List<CompletableFuture<TopicConfig>> created = new ArrayList<>();
        for (String name : placement.groups()) {
            if (!name.equals(metadataGroup)) {
                created.add(createOn(name, config, placement.physicalQueueCount(name)));
            }
        }
        return CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            final String text = placement.format();
            final boolean unchanged = book.texts().containsKey(topic) ? text.equals(book.texts().get(topic))
                    : placement.groups().equals(List.of(metadataGroup));
            if (unchanged) {
                return CompletableFuture.completedFuture(null);
            }
            // Conditional, as scaling's: a placement another proxy wrote meanwhile wins, and is placed from again.
            return book.replace(read.text(), placement).thenCompose(written -> {
                if (written) {
                    return CompletableFuture.completedFuture(null);
                }
                if (attempt >= QueueScaler.ATTEMPTS) {
                    return CompletableFuture.failedFuture(new ScalingConflict("the placement of topic " + topic
                            + " changed under each of " + attempt + " attempts to place its queues"));
                }
                return metadataRefresh.get().exceptionally(e -> false).thenCompose(r -> place(config,
                        attempt + 1));
            });
        });
    }

    private CompletableFuture<TopicConfig> createOn(final String name, final TopicConfig config, final int queues) {
        final Messaging group = groups.get(name);
        final int count = Math.max(queues, group.topics().get(config.name()).map(TopicConfig::queueCount).orElse(0));
        return group.topics().createOrUpdate(new TopicConfig(config.name(), count, config.type(),
                config.permissions(), config.attributes()));
    }

    /** Deletes the topic from the metadata group, its placement, then from every other group holding it. */
    @Override
    public CompletableFuture<Boolean> delete(final String topic) {
        final TopicPlacement placement = book.get(topic);
        return metadata.topics().delete(topic).thenCompose(deleted -> {
            if (placement == null) {
                return CompletableFuture.completedFuture(deleted);
            }
            final List<CompletableFuture<Boolean>> others = new ArrayList<>();
            others.add(book.delete(topic));
            for (String name : placement.groups()) {
                if (!name.equals(metadataGroup)) {
                    others.add(groups.get(name).topics().delete(topic));
                }
            }
            return CompletableFuture.allOf(others.toArray(CompletableFuture[]::new)).thenApply(v -> deleted);
        });
    }

    @Override
    public Optional<TopicConfig> get(final String topic) {
        return metadata.topics().get(topic);
    }

    @Override
    public Collection<TopicConfig> list() {
        return metadata.topics().list();
    }
}
