package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.message.MessageIds;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Queries by message id, key and time over store groups: every group holding the topic is asked at once, each answer
 * put in the terms the proxy hands out ({@link LogicalMessages}), and the answers merged in the order the contract
 * promises (newest first by key, oldest first by time), at most the asked count. A topic without placement is asked
 * of the metadata group only. A commit-log offset (and an offset message id) names its group ({@link GroupNumbering}),
 * so a look-up by offset asks that group alone.
 */
final class MergedQueries {
    private final LiveGroupMap groups;
    private final String metadataGroup;
    private final PlacementBook book;

    MergedQueries(final LiveGroupMap groups, final PlacementBook book) {
        this.groups = groups;
        this.metadataGroup = groups.keySet().iterator().next();
        this.book = book;
    }

    /** The message at a commit-log offset the proxy handed out, read in the group the offset names. */
    CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        final String name = groups.namedBy(commitLogOffset);
        if (name == null) {
            return CompletableFuture.completedFuture(Optional.empty()); // a group forgotten since
        }
        final int ordinal = groups.ordinal(name);
        return groups.get(name).lookup(GroupNumbering.rawOf(commitLogOffset))
                .thenApply(found -> found.map(m -> LogicalMessages.fromGroup(book.get(m.topic()), name, ordinal, m)));
    }

    /**
     * By unique id every group holding the topic is asked; an offset message id naming a group is asked of that group
     * with the group's own offset in it (a unique id may look like an offset id, so the groups are asked as well).
     */
    CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        // Groups whose stores share a store host could each match an offset id by their own offset: only the
        // message whose id, as handed out (its offset naming its group), is the one asked for is the answer.
        final CompletableFuture<List<StoredMessage>> byUnique = fromEveryGroup(topic, m -> m.queryById(topic,
                messageId).thenApply(o -> o.map(List::of).orElse(List.of()))).thenApply(found -> found.stream()
                .filter(m -> messageId.equals(m.uniqueId()) || messageId.equals(m.offsetMessageId())).toList());
        final String untagged = GroupNumbering.untaggedOffsetId(messageId);
        final String named = untagged == null ? null : groups.namedBy(MessageIds.commitLogOffsetOf(messageId));
        if (named == null) {
            return byUnique.thenApply(found -> found.stream().findFirst());
        }
        final CompletableFuture<Optional<StoredMessage>> byOffset = groups.get(named).queryById(topic, untagged)
                .thenApply(o -> o.map(m -> LogicalMessages.fromGroup(book.get(topic), named, groups.ordinal(named),
                        m)));
        return byOffset.thenCombine(byUnique, (offsetFound, uniqueFound) -> offsetFound.isPresent() ? offsetFound
                : uniqueFound.stream().findFirst());
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
            final int ordinal = groups.ordinal(name);
            answers.add(query.apply(groups.get(name)).thenApply(list -> list.stream()
                    .map(m -> LogicalMessages.fromGroup(placement, name, ordinal, m)).toList()));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final List<StoredMessage> all = new ArrayList<>();
            answers.forEach(a -> all.addAll(a.join()));
            return all;
        });
    }

}
