package io.junction.core.engine;

import io.junction.core.index.MessageIndex;
import io.junction.core.io.SegmentFile;
import io.junction.core.log.CommitLog;
import io.junction.core.log.RecordCodec;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.queue.Dispatcher;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the oldest log segment while its messages are past the retention time or the disk is above the maximum
 * ratio, never one the dispatcher has not indexed yet; then drops the queue entries and index entries below the new
 * start of the log.
 */
final class Retention {
    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);
    private static final int DISPATCH_WAIT_SECONDS = 10;

    private final StoreConfig config;
    private final LongSupplier clock;
    private final Path root;
    private final CommitLog log;
    private final ConsumeQueueStore queues;
    private final MessageIndex index;
    private final Dispatcher dispatcher;
    private final CompactedRetention compacted;

    Retention(final StoreConfig config, final LongSupplier clock, final Path root, final CommitLog log,
              final ConsumeQueueStore queues, final MessageIndex index, final Dispatcher dispatcher,
              final CompactedRetention compacted) {
        this.compacted = compacted;
        this.config = config;
        this.clock = clock;
        this.root = root;
        this.log = log;
        this.queues = queues;
        this.index = index;
        this.dispatcher = dispatcher;
    }

    /**
     * One pass (the maintenance thread, every ten seconds); a failure is logged and the next pass tries again.
     * Synchronized: two passes at once (the schedule and a pass asked for directly) would both copy the latest values
     * of a compacted segment before either deleted it, leaving every key twice.
     */
    synchronized void apply() {
        try {
            final long cutoff = clock.getAsLong() - config.retention().toMillis();
            boolean deleted = false;
            while (true) {
                final List<SegmentFile> segments = log.segments();
                if (segments.size() < 2) {
                    break;
                }
                final double used = diskUsedRatio();
                final long nextStart = segments.get(1).baseOffset();
                final ByteBuffer first = log.readRecord(nextStart);
                final long endTime = first == null ? Long.MAX_VALUE
                        : RecordCodec.storeTimestamp(first, 0);
                final boolean expired = endTime < cutoff;
                if ((!expired && used < config.maxDiskUsedRatio()) || nextStart > dispatcher.dispatchedOffset()) {
                    break;
                }
                if (!keepCompacted(nextStart, expired)) {
                    break;
                }
                if (!log.deleteOldest()) {
                    break;
                }
                deleted = true;
                LOG.info("Retention: deleted log segment {} ({})", segments.get(0),
                        expired ? "expired" : "disk above " + Math.round(config.maxDiskUsedRatio() * 100) + "%");
            }
            if (deleted) {
                queues.dropBelow(log.minOffset());
                index.dropBelow(log.minOffset());
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("Retention failed; will retry", e);
        }
    }

    /**
     * Copies the latest message of each key of compacted topics below {@code nextStart} to their queues' ends before
     * the segment goes; false when that failed and the segment must stay (an expired one: the copies are tried again
     * next time). A segment deleted for disk space goes even when the copies fail (a full disk refuses them): a full
     * disk would otherwise never be relieved.
     */
    private boolean keepCompacted(final long nextStart, final boolean expired) {
        try {
            compacted.carryForward(nextStart).get(60, TimeUnit.SECONDS);
            return awaitDispatched(log.writeOffset());
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("Retention: cannot keep the latest values of compacted topics below log offset {}{}",
                    nextStart, expired ? "; the segment stays" : "; deleting the segment for disk space", e);
            return !expired;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Waits until the dispatcher has indexed the log up to {@code end}: the copies just made must be in their queues
     * before the next segment's keys are looked for, or the originals (still in the queue until the pass ends) would
     * look like the latest values and be copied a second time. False (the segment stays) if that takes too long.
     */
    private boolean awaitDispatched(final long end) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DISPATCH_WAIT_SECONDS);
        while (dispatcher.dispatchedOffset() < end) {
            if (System.nanoTime() > deadline) {
                LOG.warn("Retention: the copies of compacted topics below log offset {} are not indexed after {} s; "
                        + "the segment stays until the next pass", end, DISPATCH_WAIT_SECONDS);
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    private double diskUsedRatio() throws IOException {
        final FileStore store = Files.getFileStore(root);
        return 1.0 - (double) store.getUsableSpace() / store.getTotalSpace();
    }
}
