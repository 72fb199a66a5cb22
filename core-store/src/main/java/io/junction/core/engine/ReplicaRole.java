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
 *   <li>follower: takes no sends; its log grows only by {@link MessageStore#applyReplicated}, and the jobs that write
 *   on their own (POP revive, timers, transaction check-backs, retention copies) do not run.</li>
 * </ul>
 *
 * @param follower    whether this store is a follower
 * @param replication where a leader's written ranges go
 * @param logEnd      where the group's committed log ends as far as this replica knows: a longer local log is cut
 *                    there at open (a tail the group never committed); -1 keeps the log as recovered
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

    /** A follower. */
    public static ReplicaRole follower(final long logEnd, final DurableTable.Replication metadata) {
        return new ReplicaRole(true, LogReplication.NONE, logEnd, metadata);
    }
}
