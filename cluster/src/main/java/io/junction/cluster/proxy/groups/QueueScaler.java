package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;

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
 * segment ({@link SealedQueueRetry}). Scaling one topic is serialized on this proxy; across proxies the placement write
 * is conditional: it names the placement text the plan was made from, and the metadata group's leader writes it only
 * while that is still the one kept ({@link PlacementBook#replace}). A proxy that loses the race (another one's scaling
 * of the topic, or creation's placing of new queues, landed first) reads the placement again from the leader and plans
 * afresh from it, up to {@value #ATTEMPTS} times, then gives up ({@link ScalingConflict}). What the losing attempt
 * did is harmless: a seal is idempotent (the same end), a physical queue it made stays empty (no placement names it,
 * so nothing is written there), and a queue it sealed is sealed in the winner's placement too or gets sealed in the
 * re-plan. So a segment once written as open is never dropped by another proxy's write, and each logical queue stays
 * one gapless sequence. The topic's configured queue count (the logical count routes show) then follows the placement
 * that won ({@link ConfiguredQueueCount}). A queue never moves onto the metadata group (its topic configuration is the
 * logical one, so it cannot hold extra physical queues).
 *
 * <p>Scaling in ({@code queues} below the count of open queues) closes the surplus queues, the last ones: each one's
 * open segment is sealed as in a move, with no new segment after it. Nothing is deleted: their messages stay readable
 * (offset reads, POP) until consumed and retention; routes list them for reading only and writes aimed at them go to
 * an open queue. Scaling out again reopens closed queues first (a new open segment after the sealed end).
 */
final class QueueScaler {
    /** Plans one scaling may make before it gives up to a proxy scaling the same topic without pause. */
    static final int ATTEMPTS = 8;
    private final Map<String, Messaging> groups;
    private final String metadataGroup;
    private final PlacementBook book;
    private final Predicate<String> placeable;
    private final Supplier<CompletableFuture<Boolean>> metadataRefresh;
    private final ConfiguredQueueCount counts;
    private final Map<String, CompletableFuture<TopicPlacement>> running = new HashMap<>();

    /**
     * @param groups    the store groups (a live view), metadata group first
     * @param placeable       whether new segments may be placed on a group (not on a retired one)
     * @param metadataRefresh refreshes the metadata group's mirror from its leader now (after a lost race)
     */
    QueueScaler(final Map<String, Messaging> groups, final PlacementBook book, final Predicate<String> placeable,
                final Supplier<CompletableFuture<Boolean>> metadataRefresh) {
        this.groups = groups;
        this.metadataGroup = groups.keySet().iterator().next();
        this.book = book;
        this.placeable = placeable;
        this.metadataRefresh = metadataRefresh;
        this.counts = new ConfiguredQueueCount(groups.get(metadataGroup), book, metadataRefresh);
    }

    /** Scales after any scaling of the same topic under way here; answers the new placement. */
    CompletableFuture<TopicPlacement> scale(final String topic, final int queues, final List<String> targets) {
        synchronized (running) {
            final CompletableFuture<TopicPlacement> before = running.getOrDefault(topic,
                    CompletableFuture.completedFuture(null));
            final CompletableFuture<TopicPlacement> next = before.handle((p, e) -> null)
                    .thenCompose(v -> scaleNow(topic, queues, targets, 1, Set.of()));
            running.put(topic, next);
            next.whenComplete((p, e) -> {
                synchronized (running) {
                    running.remove(topic, next);
                }
            });
            return next;
        }
    }

    /**
     * One attempt: plan from the placement kept now, seal, write it conditionally.
     *
     * @param sealedBefore the segments earlier attempts of this scaling sealed: one still open in the placement that
     *                     won (its writes refused now) moves too, even onto its own group, so no queue is left open
     *                     on paper and sealed in its store
     */
    private CompletableFuture<TopicPlacement> scaleNow(final String topic, final int queues,
                                                       final List<String> targets, final int attempt,
                                                       final Set<QueueSegment> sealedBefore) {
        final Messaging metadata = groups.get(metadataGroup);
        final TopicConfig config = metadata.topics().get(topic).orElse(null);
        if (config == null) {
            return failed(StoreError.TOPIC_NOT_FOUND, "topic " + topic + " does not exist");
        }
        if (!GroupedTopics.placeable(config)) {
            return failed(StoreError.ILLEGAL_ARGUMENT, "topic " + topic + " is kept on the metadata group");
        }
        final PlacementBook.Versioned read = book.read(topic);
        if (read.text() != null && read.placement() == null) {
            return failed(StoreError.ILLEGAL_ARGUMENT, "the placement of topic " + topic + " is unreadable");
        }
        TopicPlacement before = read.placement();
        if (before == null) {
            before = TopicPlacement.onOneGroup(topic, config.queueCount(), metadataGroup);
        }
        final String refusal = refusal(before, queues, targets);
        if (refusal != null) {
            return failed(StoreError.ILLEGAL_ARGUMENT, refusal);
        }
        final Plan plan = plan(before, queues, targets, sealedBefore);
        if (plan.moves.isEmpty() && plan.added.isEmpty() && plan.closes.isEmpty() && plan.reopens.isEmpty()) {
            return CompletableFuture.completedFuture(before);
        }
        final TopicPlacement from = before;
        return createPhysicalQueues(config, plan)
                .thenCompose(v -> sealMoved(from, plan))
                .thenCompose(ends -> {
                    final TopicPlacement after = placementAfter(from, plan, ends);
                    return book.replace(read.text(), after).thenCompose(written -> written
                            ? counts.ensure(metadata.topics().get(topic).orElse(config)).thenApply(c -> after)
                            : again(topic, queues, targets, attempt, sealedNow(from, plan, sealedBefore)));
                });
    }

    /** Another proxy's write landed first: read the placement again from the leader and plan from it. */
    private CompletableFuture<TopicPlacement> again(final String topic, final int queues, final List<String> targets,
                                                    final int attempt, final Set<QueueSegment> sealed) {
        if (attempt >= ATTEMPTS) {
            return CompletableFuture.failedFuture(new ScalingConflict("the placement of topic " + topic
                    + " changed under each of " + ATTEMPTS + " attempts to scale it (another proxy is scaling it): "
                    + "nothing was lost, scale again"));
        }
        return metadataRefresh.get().exceptionally(e -> false)
                .thenCompose(refreshed -> scaleNow(topic, queues, targets, attempt + 1, sealed));
    }

    /** The segments sealed so far: the earlier attempts' and this one's (every moving or closing open segment). */
    private static Set<QueueSegment> sealedNow(final TopicPlacement before, final Plan plan,
                                               final Set<QueueSegment> sealedBefore) {
        final Set<QueueSegment> sealed = new HashSet<>(sealedBefore);
        plan.moves.keySet().forEach(q -> sealed.add(before.openSegment(q)));
        plan.closes.forEach(q -> sealed.add(before.openSegment(q)));
        return sealed;
    }

    private String refusal(final TopicPlacement before, final int queues, final List<String> targets) {
        if (targets.isEmpty()) {
            return "name at least one store group";
        }
        for (String g : targets) {
            if (!groups.containsKey(g)) {
                return "store group " + g + " is not known here";
            }
            if (!placeable.test(g)) {
                return "store group " + g + " is retired: nothing new is placed there";
            }
        }
        if (queues < 1 || queues > TopicConfig.MAX_QUEUES) {
            return "queues must be 1.." + TopicConfig.MAX_QUEUES;
        }
        final int stay = Math.min(queues, before.writeQueueCount());
        for (int q = 0; q < Math.min(queues, before.queueCount()); q++) {
            final boolean moves = q < stay && !targets.contains(before.openSegment(q).group());
            final boolean reopens = q >= before.writeQueueCount();
            if ((moves || reopens) && movableTargets(targets).isEmpty()) {
                return "queues cannot move onto the metadata group " + metadataGroup;
            }
        }
        return null;
    }

    private List<String> movableTargets(final List<String> targets) {
        return targets.stream().filter(g -> !g.equals(metadataGroup)).toList();
    }

    /**
     * What changes: each moved queue's new (group, physical queue), the queues closed (scaled in), the closed queues
     * reopened with their new segment, each added queue's segment; the physical queue count each group then needs.
     */
    private record Plan(Map<Integer, QueueSegment> moves, Set<Integer> closes, Map<Integer, QueueSegment> reopens,
                        List<QueueSegment> added, Map<String, Integer> physical) {
    }

    private Plan plan(final TopicPlacement before, final int queues, final List<String> targets,
                      final Set<QueueSegment> sealedBefore) {
        final int open = before.writeQueueCount();
        final int stay = Math.min(queues, open);
        final Map<String, Integer> load = new LinkedHashMap<>();
        targets.forEach(g -> load.put(g, 0));
        for (int q = 0; q < stay; q++) {
            load.computeIfPresent(before.openSegment(q).group(), (g, n) -> n + 1);
        }
        final Map<String, Integer> nextPhysical = new HashMap<>();
        for (String g : targets) {
            final int onGroup = groups.get(g).topics().get(before.topic()).map(TopicConfig::queueCount).orElse(0);
            nextPhysical.put(g, Math.max(before.physicalQueueCount(g), onGroup));
        }
        final Map<Integer, QueueSegment> moves = new LinkedHashMap<>();
        for (int q = 0; q < stay; q++) {
            final QueueSegment writing = before.openSegment(q);
            if (!targets.contains(writing.group()) || sealedBefore.contains(writing)) {
                moves.put(q, freshSegment(load, movableTargets(targets), nextPhysical));
            }
        }
        final Set<Integer> closes = new TreeSet<>();
        for (int q = queues; q < open; q++) {
            closes.add(q);
        }
        final Map<Integer, QueueSegment> reopens = new LinkedHashMap<>();
        for (int q = open; q < Math.min(queues, before.queueCount()); q++) {
            reopens.put(q, freshSegment(load, movableTargets(targets), nextPhysical));
        }
        final List<QueueSegment> added = new ArrayList<>();
        for (int q = before.queueCount(); q < queues; q++) {
            final String g = leastLoaded(load, targets);
            // The metadata group's physical queue q is the logical queue q its topic configuration declares.
            final int physical = g.equals(metadataGroup) ? q : nextPhysical.merge(g, 1, Integer::sum) - 1;
            added.add(new QueueSegment(g, physical, 0, 0, QueueSegment.OPEN));
        }
        return new Plan(moves, closes, reopens, added, nextPhysical);
    }

    /** A new segment on the least loaded of {@code among}, in a physical queue free there. */
    private static QueueSegment freshSegment(final Map<String, Integer> load, final List<String> among,
                                             final Map<String, Integer> nextPhysical) {
        final String g = leastLoaded(load, among);
        return new QueueSegment(g, nextPhysical.merge(g, 1, Integer::sum) - 1, 0, 0, QueueSegment.OPEN);
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

    /** Seals every moving or closing queue's open segment on its group; the logical end of each, by logical queue. */
    private CompletableFuture<Map<Integer, Long>> sealMoved(final TopicPlacement before, final Plan plan) {
        final Map<Integer, CompletableFuture<Long>> seals = new LinkedHashMap<>();
        final Set<Integer> sealed = new TreeSet<>(plan.moves.keySet());
        sealed.addAll(plan.closes);
        for (int q : sealed) {
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
            final QueueSegment last = segments.get(segments.size() - 1);
            final long end;
            if (ends.containsKey(q)) {
                end = ends.get(q);
                segments.set(segments.size() - 1, new QueueSegment(last.group(), last.physicalQueue(),
                        last.logicalStart(), last.physicalStart(), end));
            } else {
                end = last.sealedEnd();
            }
            final QueueSegment target = plan.moves.containsKey(q) ? plan.moves.get(q) : plan.reopens.get(q);
            if (target != null) {
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
