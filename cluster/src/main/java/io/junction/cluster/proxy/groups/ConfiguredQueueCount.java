package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a placed topic's configuration in the metadata group counting every queue of its placement. That count is
 * the logical queue count routes show, and the metadata group's own physical queues are the configured ones, so a
 * count below the placement's hides logical queues from clients and makes those placed on the metadata group
 * unreadable. The placement is written by compare-and-set, the configuration is not: two proxies growing one topic
 * each write the count they placed after their placement write, and the smaller one may land last. So a writer of
 * the count reads both again from the leader after its write and raises the count until they agree. The last write
 * of the count is always followed by its writer's check, so the two cannot stay apart; the count never goes down
 * here (queues are never removed, only closed).
 */
final class ConfiguredQueueCount {
    private static final Logger LOG = LoggerFactory.getLogger(ConfiguredQueueCount.class);
    private final Messaging metadata;
    private final PlacementBook book;
    private final Supplier<CompletableFuture<Boolean>> metadataRefresh;

    /** @param metadataRefresh refreshes the metadata group's mirror from its leader now */
    ConfiguredQueueCount(final Messaging metadata, final PlacementBook book,
                         final Supplier<CompletableFuture<Boolean>> metadataRefresh) {
        this.metadata = metadata;
        this.book = book;
        this.metadataRefresh = metadataRefresh;
    }

    /**
     * Writes {@code config} with at least the placement's queue count, then raises the count until the leader's
     * configuration and placement agree. Answers the configuration as last written or read.
     */
    CompletableFuture<TopicConfig> write(final TopicConfig config) {
        final TopicPlacement placement = book.get(config.name());
        final TopicConfig raised = placement == null || placement.queueCount() <= config.queueCount() ? config
                : withQueues(config, placement.queueCount());
        return metadata.topics().createOrUpdate(raised).thenCompose(written -> agreed(written, 1));
    }

    /**
     * {@code current}, the configuration as this proxy sees it after writing a placement, written as {@link #write}
     * does when it counts fewer queues than the placement; as it is otherwise.
     */
    CompletableFuture<TopicConfig> ensure(final TopicConfig current) {
        final TopicPlacement placement = book.get(current.name());
        return placement != null && current.queueCount() < placement.queueCount() ? write(current)
                : CompletableFuture.completedFuture(current);
    }

    /** After a write of the count: reads it and the placement from the leader, and raises it while behind. */
    private CompletableFuture<TopicConfig> agreed(final TopicConfig written, final int check) {
        return metadataRefresh.get().exceptionally(e -> false).thenCompose(refreshed -> {
            final TopicConfig config = metadata.topics().get(written.name()).orElse(null);
            final TopicPlacement placement = book.get(written.name());
            if (config == null || placement == null || config.queueCount() >= placement.queueCount()) {
                return CompletableFuture.completedFuture(config == null ? written : config);
            }
            if (check >= QueueScaler.ATTEMPTS) {
                // Only a proxy writing a stale count after each of ours gets here; its own check raises it.
                LOG.warn("Topic {} configured with {} queues under a placement of {} after {} writes; left to the "
                        + "proxy that wrote it last", config.name(), config.queueCount(), placement.queueCount(),
                        check);
                return CompletableFuture.completedFuture(config);
            }
            return metadata.topics().createOrUpdate(withQueues(config, placement.queueCount()))
                    .thenCompose(again -> agreed(again, check + 1));
        });
    }

    private static TopicConfig withQueues(final TopicConfig config, final int queues) {
        return new TopicConfig(config.name(), queues, config.type(), config.permissions(), config.attributes());
    }
}
