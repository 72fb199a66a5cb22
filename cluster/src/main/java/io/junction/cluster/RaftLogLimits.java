package io.junction.cluster;

/**
 * What bounds a node's Raft log: Ratis takes a snapshot every {@code snapshotEveryEntries} applied entries and then
 * purges the log up to the snapshot, keeping the last {@code keptEntries} entries so that a follower only slightly
 * behind still catches up from the log; one further behind catches up from the leader's snapshot. Ratis deletes whole
 * closed segments only, so the log also holds up to one segment of {@code segmentBytes}.
 *
 * <p>The log then holds about {@code segmentBytes + (snapshotEveryEntries + keptEntries) x entry size} (an entry is at
 * most about 4 MiB of commit log, or one larger message).
 */
public record RaftLogLimits(long snapshotEveryEntries, long keptEntries, long segmentBytes) {

    /** 1,024 entries between snapshots, 256 kept, 64 MiB segments. */
    public static final RaftLogLimits DEFAULT = new RaftLogLimits(1024, 256, 64L << 20);

    public RaftLogLimits {
        if (snapshotEveryEntries < 1 || keptEntries < 0 || segmentBytes < (1 << 20)) {
            throw new IllegalArgumentException("Raft log limits: snapshot every >= 1 entries, kept >= 0 entries, "
                    + "segments >= 1 MiB; not " + snapshotEveryEntries + ", " + keptEntries + ", " + segmentBytes);
        }
    }
}
