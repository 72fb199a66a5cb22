package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.RuntimeFigures;
import io.junction.core.log.CommitLog;
import io.junction.core.message.StoredMessage;
import io.junction.core.stats.TrafficCounters;
import io.junction.core.threads.StoreTasks;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/** The store's {@link Messaging.Statistics}: its traffic counters plus log positions and disk use, read when asked. */
final class StoreStatistics implements Messaging.Statistics {
    private final TrafficCounters traffic;
    private final long bootTimestamp;
    private final CommitLog log;
    private final LongSupplier dispatchedOffset;
    private final MessageQueries queries;
    private final Path dataRoot;
    private final Executor readPool;

    StoreStatistics(final TrafficCounters traffic, final long bootTimestamp, final CommitLog log,
                    final LongSupplier dispatchedOffset, final MessageQueries queries, final Path dataRoot,
                    final Executor readPool) {
        this.traffic = traffic;
        this.bootTimestamp = bootTimestamp;
        this.log = log;
        this.dispatchedOffset = dispatchedOffset;
        this.queries = queries;
        this.dataRoot = dataRoot;
        this.readPool = readPool;
    }

    @Override
    public CompletableFuture<RuntimeFigures> runtime() {
        // The oldest message's time is a read of the log, and the disk figures a file-system call: off the caller.
        return StoreTasks.supply(readPool, () -> {
            final long min = log.minOffset();
            final long written = log.writeOffset();
            final Optional<StoredMessage> oldest = min < written ? queries.at(min) : Optional.empty();
            return new RuntimeFigures(bootTimestamp, traffic.storedPerSecond(), traffic.handedOutPerSecond(),
                    traffic.foundReadsPerSecond(), traffic.missedReadsPerSecond(), traffic.storedTotals(),
                    traffic.handedOutTotals(), min, written, Math.max(0, written - dispatchedOffset.getAsLong()),
                    Math.max(0, written - log.flushedOffset()), diskUsedRatio(),
                    oldest.map(StoredMessage::storeTimestamp).orElse(-1L));
        });
    }

    @Override
    public double consumeTps(final String group, final String topic) {
        return traffic.handedOutPerSecond(group, topic);
    }

    private double diskUsedRatio() {
        try {
            final FileStore store = Files.getFileStore(dataRoot);
            final long total = store.getTotalSpace();
            return total <= 0 ? -1 : (double) (total - store.getUsableSpace()) / total;
        } catch (IOException e) {
            return -1;
        }
    }
}
