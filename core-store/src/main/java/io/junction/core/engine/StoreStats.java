package io.junction.core.engine;

import io.junction.core.log.CommitLog;
import io.junction.core.queue.ConsumeQueue;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.queue.QueueEntryDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
    /** Measures the store now: the log and queue bytes held, the disk's free space (-1 when unknown). */
    static StoreStats measure(final CommitLog log, final ConsumeQueueStore queues, final Path root,
                              final int topicCount, final boolean crashed) {
        long queueBytes = 0;
        for (ConsumeQueue q : queues.all()) {
            queueBytes += (q.maxOffset() - q.minOffset()) * QueueEntryDescriptor.ENTRY_LENGTH;
        }
        long free = -1;
        try {
            free = Files.getFileStore(root).getUsableSpace();
        } catch (IOException ignored) {
            // Reported as unknown.
        }
        return new StoreStats(log.writeOffset() - log.minOffset() + queueBytes, free, log.minOffset(),
                log.writeOffset(), log.flushedOffset(), topicCount, crashed, log.damagedRecords());
    }
}
