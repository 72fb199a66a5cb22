package io.junction.cluster;

/**
 * What bounds a node's Raft log: Ratis takes a snapshot every {@code snapshotEveryEntries} applied entries and then
 * purges the log up to the snapshot, keeping the last {@code keptEntries} entries so that a follower only slightly
 * behind still catches up from the log; one further behind catches up from the leader's snapshot. Ratis deletes whole
 * closed segments only, so the log also holds up to one segment of {@code segmentBytes}.
 *
 * <p>The log then holds about {@code segmentBytes + (snapshotEveryEntries + keptEntries) x entry size}: a log-range
 * entry is a header of a few dozen bytes (its bytes are state-machine data, written to the commit log only), a metadata
 * change its change, an offsets entry the whole consumer-offset table.
 *
 * <p>Configured by {@code cluster.snapshot-interval-entries}, {@code cluster.log-keep-entries} and {@code
 * cluster.log-segment-size}; the messages of the checks below name them.
 */
public record RaftLogLimits(long snapshotEveryEntries, long keptEntries, long segmentBytes) {

    /** 1,024 entries between snapshots, 256 kept, 64 MiB segments. */
    public static final RaftLogLimits DEFAULT = new RaftLogLimits(1024, 256, 64L << 20);
    /**
     * Log-range entries are headers of a few dozen bytes, so small segments are purged soon; smaller ones would be
     * rolled for nearly every offsets entry (each carries the whole consumer-offset table).
     */
    private static final long MIN_SEGMENT_BYTES = 16 << 10;

    public RaftLogLimits {
        if (snapshotEveryEntries < 1 || snapshotEveryEntries > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("cluster.snapshot-interval-entries must be 1 to " + Integer.MAX_VALUE
                    + ", not " + snapshotEveryEntries);
        }
        if (keptEntries < 0) {
            throw new IllegalArgumentException("cluster.log-keep-entries must be at least 0, not " + keptEntries);
        }
        if (segmentBytes < MIN_SEGMENT_BYTES) {
            throw new IllegalArgumentException("cluster.log-segment-size must be at least 16k, not " + segmentBytes
                    + " bytes");
        }
    }
}
