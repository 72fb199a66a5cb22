package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.filter.MessageFilter;
import io.junction.core.log.CommitLog;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.StoredMessage;
import io.junction.core.queue.ConsumeQueue;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.queue.QueueEntryDescriptor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a queue from an offset: queue entries first, the tag-hash stage of the filter on the entry alone, then the
 * record from the log and the exact filter stage. Stored records that fail their check are never returned.
 */
final class QueueReader {
    /** Most entries looked at in one pull, so a filter that matches nothing cannot make one pull scan forever. */
    static final int MAX_SCAN_ENTRIES = 16 * 1024;
    /** Most bytes returned by one pull. */
    static final int MAX_PULL_BYTES = 8 * 1024 * 1024;

    private final CommitLog log;
    private final ConsumeQueueStore queues;
    private final RecentRecords recentRecords = new RecentRecords();

    QueueReader(final CommitLog log, final ConsumeQueueStore queues) {
        this.log = log;
        this.queues = queues;
    }

    PullResult read(final PullRequest request) {
        final ConsumeQueue queue = queues.find(request.topic(), request.queueId());
        final long min = queue == null ? 0 : queue.minOffset();
        final long max = queue == null ? 0 : queue.maxOffset();
        final long offset = request.offset();
        if (offset < min) {
            return PullResult.empty(PullStatus.OFFSET_TOO_SMALL, min, min, max);
        }
        if (offset > max) {
            return PullResult.empty(PullStatus.OFFSET_OVERFLOW, max, min, max);
        }
        if (offset == max) {
            return PullResult.empty(PullStatus.NO_NEW_MESSAGE, max, min, max);
        }
        final MessageFilter filter = request.filter();
        final int wanted = Math.max(1, request.maxMessages());
        final List<StoredMessage> found = new ArrayList<>(Math.min(wanted, 32));
        long next = offset;
        int bytes = 0;
        int scanned = 0;
        scan:
        while (next < max && found.size() < wanted && scanned < MAX_SCAN_ENTRIES) {
            final ByteBuffer entries = queue.entries(next, Math.min(MAX_SCAN_ENTRIES - scanned, 1024));
            final int count = entries.remaining() / QueueEntryDescriptor.ENTRY_LENGTH;
            if (count == 0) {
                break;
            }
            for (int i = 0; i < count; i++) {
                final int pos = i * QueueEntryDescriptor.ENTRY_LENGTH;
                final int size = QueueEntryDescriptor.size(entries, pos);
                if (size > 0 && filter.matchesTagHash(QueueEntryDescriptor.tagHash(entries, pos))) {
                    if (bytes + size > MAX_PULL_BYTES && !found.isEmpty()) {
                        break scan;
                    }
                    final StoredMessage message = message(QueueEntryDescriptor.logOffset(entries, pos),
                            request.topic());
                    if (message != null && filter.matches(message.properties(), message.bornTimestamp())) {
                        found.add(message);
                        bytes += size;
                    }
                }
                next++;
                scanned++;
                if (found.size() >= wanted) {
                    break scan;
                }
            }
        }
        final PullStatus status = found.isEmpty() ? PullStatus.NO_MATCHED_MESSAGE : PullStatus.FOUND;
        return new PullResult(status, found, next, queue.minOffset(), queue.maxOffset());
    }

    /** The record at a log offset a queue entry points at, decoded (shared with other readers), or null. */
    private StoredMessage message(final long logOffset, final String topic) {
        final StoredMessage recent = recentRecords.get(logOffset);
        if (recent != null) {
            return recent;
        }
        final ByteBuffer record = log.readRecord(logOffset);
        if (record == null) {
            return null;
        }
        final StoredMessage message = RecordCodec.decode(record, topic);
        recentRecords.put(message);
        return message;
    }

    /** Store time of the record an entry points at, or -1 when it cannot be read. */
    long storeTimeAt(final ConsumeQueue queue, final long queueOffset) {
        final ByteBuffer entry = queue.entries(queueOffset, 1);
        if (entry.remaining() < QueueEntryDescriptor.ENTRY_LENGTH || QueueEntryDescriptor.size(entry, 0) == 0) {
            return -1;
        }
        final ByteBuffer record = log.readRecord(QueueEntryDescriptor.logOffset(entry, 0));
        return record == null ? -1 : RecordCodec.storeTimestamp(record, 0);
    }

    /** First offset in [min, max) whose record was stored at or after {@code timestamp}, else max. */
    long searchOffset(final String topic, final int queueId, final long timestamp) {
        final ConsumeQueue queue = queues.find(topic, queueId);
        if (queue == null) {
            return 0;
        }
        long low = queue.minOffset();
        long high = queue.maxOffset();
        while (low < high) {
            final long mid = (low + high) >>> 1;
            final long time = storeTimeAt(queue, mid);
            if (time >= 0 && time < timestamp) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
