package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Scales a topic across store groups without copying a message. {@code scale(topic, queues, targets)}: each logical
 * queue whose open segment is on a group outside {@code targets} moves to the target group holding the fewest of the
 * topic's open segments; queues past the current count are placed the same way. A move:
 * <ol>
 *   <li>a free physical queue on the target group (past every physical queue the topic has there), the topic created
 *       or enlarged there;</li>
 *   <li>the open segment's queue sealed on its group: the store refuses every later write to it and answers its final
 *       end, so no acknowledged write lies past it;</li>
 *   <li>the placement written with the old segment sealed at that end and a new open segment on the target starting at
 *       the same logical offset: one gapless sequence, everything before the seal before everything after.</li>
 * </ol>
 * Between the seal and the placement sends to the queue are refused as sealed; the proxy sends them again to the new
 * segment ({@link SealedQueueRetry}). Scaling one topic is serialized on this proxy; two proxies scaling the same topic
 * at once are not coordinated (the last placement written wins). A queue never moves onto the metadata group (its
 * topic configuration is the logical one, so it cannot hold extra physical queues), and queues are never removed.
 */
final class QueueScaler {
    private final Map<String, Messaging> groups;
    private final String metadataGroup;
    private final PlacementBook book;
    private final Map<String, CompletableFuture<TopicPlacement>> running = new HashMap<>();

    QueueScaler(final Map<String, Messaging> groups, final PlacementBook book) {
        this.groups = groups;
        this.metadataGroup = groups.keySet().iterator().next();
        this.book = book;
    }

    /** Scales after any scaling of the same topic under way here; answers the new placement. */
    CompletableFuture<TopicPlacement> scale(final String topic, final int queues, final List<String> targets) {
        synchronized (running) {
            final CompletableFuture<TopicPlacement> before = running.getOrDefault(topic,
                    CompletableFuture.completedFuture(null));
            final CompletableFuture<TopicPlacement> next = before.handle((p, e) -> null)
                    .thenCompose(v -> scaleNow(topic, queues, targets));
            running.put(topic, next);
            next.whenComplete((p, e) -> {
                synchronized (running) {
                    running.remove(topic, next);
                }
            });
            return next;
        }
    }

    private CompletableFuture<TopicPlacement> scaleNow(final String topic, final int queues,
                                                       final List<String> targets) {
        final Messaging metadata = groups.get(metadataGroup);
        final TopicConfig config = metadata.topics().get(topic).orElse(null);
        if (config == null) {
            return failed(StoreError.TOPIC_NOT_FOUND, "topic " + topic + " does not exist");
        }
        if (!GroupedTopics.placeable(config)) {
            return failed(StoreError.ILLEGAL_ARGUMENT, "topic " + topic + " is kept on the metadata group");
        }
        TopicPlacement before = book.get(topic);
        if (before == null) {
            before = TopicPlacement.onOneGroup(topic, config.queueCount(), metadataGroup);
        }
        final String refusal = refusal(before, queues, targets);
        if (refusal != null) {
            return failed(StoreError.ILLEGAL_ARGUMENT, refusal);
        }
        final Plan plan = plan(before, queues, targets);
        if (plan.moves.isEmpty() && plan.added.isEmpty()) {
            return CompletableFuture.completedFuture(before);
        }
        final TopicPlacement from = before;
        return createPhysicalQueues(config, plan)
                .thenCompose(v -> sealMoved(from, plan))
                .thenCompose(ends -> {
                    final TopicPlacement after = placementAfter(from, plan, ends);
                    return book.put(after).thenApply(w -> after);
                })
                .thenCompose(after -> queues > config.queueCount()
                        ? metadata.topics().createOrUpdate(new TopicConfig(topic, queues, config.type(),
                                config.permissions(), config.attributes())).thenApply(t -> after)
                        : CompletableFuture.completedFuture(after));
    }

    private String refusal(final TopicPlacement before, final int queues, final List<String> targets) {
        if (targets.isEmpty()) {
            return "name at least one store group";
        }
        for (String g : targets) {
            if (!groups.containsKey(g)) {
                return "store group " + g + " is not configured here";
            }
        }
        if (queues < before.queueCount()) {
            return "the topic has " + before.queueCount() + " queues: scaling never removes queues";
        }
        for (int q = 0; q < before.queueCount(); q++) {
            if (!targets.contains(before.openSegment(q).group()) && movableTargets(targets).isEmpty()) {
                return "queues cannot move onto the metadata group " + metadataGroup;
            }
        }
        return null;
    }

    private List<String> movableTargets(final List<String> targets) {
        return targets.stream().filter(g -> !g.equals(metadataGroup)).toList();
    }

    /** What changes: each moved queue's new (group, physical queue), each added queue's. */
    private record Plan(Map<Integer, QueueSegment> moves, List<QueueSegment> added, Map<String, Integer> physical) {
    }

    private Plan plan(final TopicPlacement before, final int queues, final List<String> targets) {
        final Map<String, Integer> load = new LinkedHashMap<>();
        targets.forEach(g -> load.put(g, 0));
        for (int q = 0; q < before.queueCount(); q++) {
            load.computeIfPresent(before.openSegment(q).group(), (g, n) -> n + 1);
        }
        final Map<String, Integer> nextPhysical = new HashMap<>();
        for (String g : targets) {
            final int onGroup = groups.get(g).topics().get(before.topic()).map(TopicConfig::queueCount).orElse(0);
            nextPhysical.put(g, Math.max(before.physicalQueueCount(g), onGroup));
        }
        final Map<Integer, QueueSegment> moves = new LinkedHashMap<>();
        for (int q = 0; q < before.queueCount(); q++) {
            if (!targets.contains(before.openSegment(q).group())) {
                final String g = leastLoaded(load, movableTargets(targets));
                final int physical = nextPhysical.merge(g, 1, Integer::sum) - 1;
                moves.put(q, new QueueSegment(g, physical, 0, 0, QueueSegment.OPEN));
            }
        }
        final List<QueueSegment> added = new ArrayList<>();
        for (int q = before.queueCount(); q < queues; q++) {
            final String g = leastLoaded(load, targets);
            // The metadata group's physical queue q is the logical queue q its topic configuration declares.
            final int physical = g.equals(metadataGroup) ? q : nextPhysical.merge(g, 1, Integer::sum) - 1;
            added.add(new QueueSegment(g, physical, 0, 0, QueueSegment.OPEN));
        }
        return new Plan(moves, added, nextPhysical);
    }

    private static String leastLoaded(final Map<String, Integer> load, final List<String> among) {
        String best = among.get(0);
        for (String g : among) {
            if (load.get(g) < load.get(best)) {
                best = g;
            }
        }
        load.merge(best, 1, Integer::sum);
        return best;
    }

    /** The topic on every target group (not the metadata group) with the physical queues the plan gives it. */
    private CompletableFuture<Void> createPhysicalQueues(final TopicConfig config, final Plan plan) {
        final List<CompletableFuture<TopicConfig>> created = new ArrayList<>();
        plan.physical.forEach((g, count) -> {
            if (!g.equals(metadataGroup) && count > 0) {
                final Messaging group = groups.get(g);
                final int have = group.topics().get(config.name()).map(TopicConfig::queueCount).orElse(0);
                if (count > have) {
                    created.add(group.topics().createOrUpdate(new TopicConfig(config.name(), count, config.type(),
                            config.permissions(), config.attributes())));
                }
            }
        });
        return CompletableFuture.allOf(created.toArray(CompletableFuture[]::new));
    }

    /** Seals every moving queue's open segment on its group; the logical end of each, by logical queue. */
    private CompletableFuture<Map<Integer, Long>> sealMoved(final TopicPlacement before, final Plan plan) {
        final Map<Integer, CompletableFuture<Long>> seals = new LinkedHashMap<>();
        for (int q : plan.moves.keySet()) {
            final QueueSegment open = before.openSegment(q);
            seals.put(q, groups.get(open.group()).topics().sealQueue(before.topic(), open.physicalQueue())
                    .thenApply(open::toLogical));
        }
        return CompletableFuture.allOf(seals.values().toArray(CompletableFuture[]::new)).thenApply(v -> {
            final Map<Integer, Long> ends = new HashMap<>();
            seals.forEach((q, f) -> ends.put(q, f.join()));
            return ends;
        });
    }

    private TopicPlacement placementAfter(final TopicPlacement before, final Plan plan, final Map<Integer, Long> ends) {
        final List<List<QueueSegment>> queues = new ArrayList<>();
        for (int q = 0; q < before.queueCount(); q++) {
            final List<QueueSegment> segments = new ArrayList<>(before.queue(q));
            final QueueSegment target = plan.moves.get(q);
            if (target != null) {
                final QueueSegment open = segments.remove(segments.size() - 1);
                final long end = ends.get(q);
                segments.add(new QueueSegment(open.group(), open.physicalQueue(), open.logicalStart(),
                        open.physicalStart(), end));
                segments.add(new QueueSegment(target.group(), target.physicalQueue(), end,
                        physicalStart(before.topic(), target), QueueSegment.OPEN));
            }
            queues.add(segments);
        }
        for (QueueSegment added : plan.added) {
            queues.add(List.of(new QueueSegment(added.group(), added.physicalQueue(), 0,
                    physicalStart(before.topic(), added), QueueSegment.OPEN)));
        }
        return new TopicPlacement(before.topic(), queues);
    }

    /** Where a new segment's physical queue starts: its end now (0 for a queue never written). */
    private long physicalStart(final String topic, final QueueSegment segment) {
        return Math.max(0, groups.get(segment.group()).maxOffset(topic, segment.physicalQueue()));
    }

    private static <T> CompletableFuture<T> failed(final StoreError error, final String text) {
        return CompletableFuture.failedFuture(new StoreException(error, text));
    }
}
