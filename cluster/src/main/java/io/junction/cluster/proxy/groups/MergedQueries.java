package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Queries by message id, key and time over store groups: every group holding the topic is asked at once, each answer
 * put in logical queue terms, and the answers merged in the order the contract promises (newest first by key, oldest
 * first by time), at most the asked count. A topic without placement is asked of the metadata group only.
 */
final class MergedQueries {
    private final Map<String, Messaging> groups;
    private final String metadataGroup;
    private final PlacementBook book;

    MergedQueries(final Map<String, Messaging> groups, final PlacementBook book) {
        this.groups = groups;
        this.metadataGroup = groups.keySet().iterator().next();
        this.book = book;
    }

    CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return fromEveryGroup(topic, m -> m.queryById(topic, messageId).thenApply(o -> o.map(List::of)
                .orElse(List.of()))).thenApply(found -> found.stream().findFirst());
    }

    CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return fromEveryGroup(topic, m -> m.queryByKey(topic, key, max, beginTimestamp, endTimestamp))
                .thenApply(found -> found.stream()
                        .sorted(Comparator.comparingLong(StoredMessage::storeTimestamp).reversed())
                        .limit(max).toList());
    }

    CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return fromEveryGroup(topic, m -> m.queryByTime(topic, beginTimestamp, endTimestamp, max))
                .thenApply(found -> found.stream()
                        .sorted(Comparator.comparingLong(StoredMessage::storeTimestamp))
                        .limit(max).toList());
    }

    /** Asks every group holding the topic and merges their answers, each message in its logical queue. */
    private CompletableFuture<List<StoredMessage>> fromEveryGroup(
            final String topic, final Function<Messaging, CompletableFuture<List<StoredMessage>>> query) {
        final TopicPlacement placement = book.get(topic);
        // A group forgotten since (removed once nothing there was readable) is not asked.
        final List<String> names = placement == null ? List.of(metadataGroup)
                : placement.groups().stream().filter(groups::containsKey).toList();
        final List<CompletableFuture<List<StoredMessage>>> answers = new ArrayList<>();
        for (String name : names) {
            answers.add(query.apply(groups.get(name)).thenApply(list -> list.stream()
                    .map(m -> LogicalMessages.fromGroup(placement, name, m)).toList()));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final List<StoredMessage> all = new ArrayList<>();
            answers.forEach(a -> all.addAll(a.join()));
            return all;
        });
    }

}
