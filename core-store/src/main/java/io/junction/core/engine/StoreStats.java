package io.junction.core.engine;

/**
 * A snapshot of the store's size and positions.
 *
 * @param diskUsedBytes     bytes of all store files under the data directory
 * @param diskFreeBytes     free bytes on the data directory's file system
 * @param logMinOffset      first readable log offset
 * @param logWriteOffset    end of the written log
 * @param logFlushedOffset  end of the forced log
 * @param topicCount        topics known
 * @param recoveredFromCrash whether the last start found the store not cleanly shut down
 * @param damagedRecords    records found damaged on disk (failing their CRC) since the start; never served
 */
public record StoreStats(
        long diskUsedBytes,
        long diskFreeBytes,
        long logMinOffset,
        long logWriteOffset,
        long logFlushedOffset,
        int topicCount,
        boolean recoveredFromCrash,
        long damagedRecords) {
}
