package io.junction.core.engine;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.index.MessageIndex;
import io.junction.core.log.CommitLog;
import io.junction.core.message.RecordLayout;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.queue.Dispatcher;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the log and what is derived from it back into agreement at open: the log is re-verified from the last
 * checkpoint (cutting a torn tail), each record found is indexed again, and queue and index entries past the log's
 * end or below its start are dropped. The delivery features replay their own system topics afterwards.
 */
final class StoreRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);

    private StoreRecovery() {
    }

    /** Recovers and returns the log's end, where appends go on. */
    static long recover(final StoreConfig config, final long recoverFrom, final boolean crashed, final CommitLog log,
                        final ConsumeQueueStore queues, final MessageIndex index, final Dispatcher dispatcher)
            throws IOException {
        final long started = System.nanoTime();
        final int maxRecordSize = RecordLayout.recordLength(RecordLayout.SYS_FLAG_BORN_HOST_V6
                        | RecordLayout.SYS_FLAG_STORE_HOST_V6, config.maxMessageSize(),
                RecordLayout.MAX_TOPIC_LENGTH, RecordLayout.MAX_PROPERTIES_LENGTH);
        final long end = log.recover(recoverFrom, maxRecordSize, (view, pos, size) -> {
            try {
                dispatcher.index(view, pos);
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "re-indexing failed: " + e.getMessage(), e);
            }
        });
        queues.truncate(end);
        index.truncate(end);
        queues.dropBelow(log.minOffset());
        LOG.info("Store recovered in {} ms: log {}..{}{}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                log.minOffset(), end, crashed ? " (after a crash: re-verified from offset " + recoverFrom + ")" : "");
        return end;
    }

    /**
     * Cuts the recovered log at {@code logEnd}, where the replicated group's committed log ends as this replica
     * knows it (-1: no cut), with the queue and index entries past it; returns where indexing goes on. A follower
     * writing ahead keeps the log past {@code logEnd} (ranges its group may still commit) and drops only their queue
     * and index entries: they are indexed again once committed.
     */
    static long cut(final long logEnd, final boolean keepTail, final long end, final CommitLog log,
                    final ConsumeQueueStore queues, final MessageIndex index) throws IOException {
        if (logEnd < 0 || logEnd == end) {
            return end;
        }
        if (logEnd > end) {
            throw new ShortLogException("the log ends at " + end + ", before " + logEnd + " that the cluster recorded as "
                    + "applied: files of this replica are missing");
        }
        if (!keepTail) {
            log.truncate(logEnd);
        }
        queues.truncate(logEnd);
        index.truncate(logEnd);
        return logEnd;
    }
}
