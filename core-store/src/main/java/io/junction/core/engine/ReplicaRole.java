package io.junction.core.engine;

import io.junction.core.log.LogReplication;
import io.junction.core.meta.DurableTable;
import java.util.Objects;

/**
 * The part a store plays in its replicated group, fixed at open (changing it means reopening the store).
 *
 * <ul>
 *   <li>{@link #SINGLE}: the only copy; today's store, nothing replicated.</li>
 *   <li>leader: appends as a single node does, but a send completes only once its range is committed by the group
 *   ({@link LogReplication}).</li>
 *   <li>follower ({@link #writingAhead}): takes no sends; its log grows only by {@link MessageStore#writeAhead}, with
 *   ranges written before the group commits them; consumers see nothing past the committed offset of its
 *   {@code replication}, and the tail past {@code logEnd} is kept at open (not indexed) rather than cut, since the
 *   group may still commit it. The jobs that write on their own (POP revive, timers, transaction check-backs,
 *   retention copies) do not run.</li>
 * </ul>
 *
 * @param follower    whether this store is a follower
 * @param replication where a leader's written ranges go
 * @param logEnd      where the group's committed log ends as far as this replica knows: a longer local log is cut
 *                    there at open by a leader (a tail the group never committed), only indexed up to there by a
 *                    follower; -1 keeps the log as recovered
 * @param metadata    where changes of the topic, group and key-value tables go (proposed to the group, applied on
 *                    every replica through {@link MessageStore#applyMetadata}); null on a single node
 */
public record ReplicaRole(boolean follower, LogReplication replication, long logEnd,
                          DurableTable.Replication metadata) {

    /** The single node: no group. */
    public static final ReplicaRole SINGLE = new ReplicaRole(false, LogReplication.NONE, -1, null);

    public ReplicaRole {
        Objects.requireNonNull(replication, "replication");
    }

    /** A leader whose ranges go through {@code replication}. */
    public static ReplicaRole leader(final LogReplication replication, final long logEnd,
                                     final DurableTable.Replication metadata) {
        return new ReplicaRole(false, replication, logEnd, metadata);
    }

    /**
     * A follower whose log is written ahead of the group's commit: ranges land at their offsets when they arrive and
     * become visible once {@code committed} says so ({@link LogReplication#committedOffset}; its other methods are
     * not called). At open the log is indexed up to {@code committedEnd} and kept whole past it.
     */
    public static ReplicaRole writingAhead(final long committedEnd, final LogReplication committed,
                                           final DurableTable.Replication metadata) {
        Objects.requireNonNull(committed, "committed");
        return new ReplicaRole(true, committed, committedEnd, metadata);
    }
}
