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
import java.util.function.IntFunction;

/**
 * Reads a queue from an offset: queue entries first, the tag-hash stage of the filter on the entry alone, then the
 * record from the log and the exact filter stage. Stored records that fail their check are never returned.
 */
final class QueueReader {
    /** Most entries looked at in one pull, so a filter that matches nothing cannot make one pull scan forever. */
    static final int MAX_SCAN_ENTRIES = 16 * 1024;
    /** Most bytes returned by one pull. */
    static final int MAX_PULL_BYTES = 8 * 1024 * 1024;
    /** Most entries read from the queue at a time. */
    private static final int ENTRIES_PER_LOOK = 1024;

    private final CommitLog log;
    private final ConsumeQueueStore queues;
    private final RecentRecords recentRecords = new RecentRecords();

    QueueReader(final CommitLog log, final ConsumeQueueStore queues) {
        this.log = log;
        this.queues = queues;
    }

    PullResult read(final PullRequest request) {
        return read(request, ByteBuffer::allocate, true);
    }

    /**
     * Reads the request's records into what {@code memory} gives; with {@code remember} the messages decoded from them
     * are kept in the recent-records cache (never for lent memory, which the next lent read reuses).
     */
    PullResult read(final PullRequest request, final IntFunction<ByteBuffer> memory, final boolean remember) {
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
        final Batch batch = new Batch(Math.min(wanted, ENTRIES_PER_LOOK));
        long next = offset;
        int bytes = 0;
        int scanned = 0;
        // The first look copies only as many entries as are wanted (a 32-message pull copied 1,024 entries, 20 KiB);
        // when filters or holes leave the pull short, later looks take the full count.
        int look = Math.min(wanted, ENTRIES_PER_LOOK);
        while (next < max && found.size() < wanted && scanned < MAX_SCAN_ENTRIES) {
            final ByteBuffer entries = queue.entries(next, Math.min(MAX_SCAN_ENTRIES - scanned, look));
            look = ENTRIES_PER_LOOK;
            final int count = entries.remaining() / QueueEntryDescriptor.ENTRY_LENGTH;
            if (count == 0) {
                break;
            }
            // Pick the entries whose records this pull may return (tag hash, message and byte limits), then read
            // their records in one go: records of one queue often lie next to each other in the log.
            batch.clear();
            int pending = 0;
            int looked = 0;
            boolean full = false;
            while (looked < count && found.size() + batch.size < wanted) {
                final int pos = looked * QueueEntryDescriptor.ENTRY_LENGTH;
                final int size = QueueEntryDescriptor.size(entries, pos);
                if (size > 0 && filter.matchesTagHash(QueueEntryDescriptor.tagHash(entries, pos))) {
                    if (bytes + pending + size > MAX_PULL_BYTES && (!found.isEmpty() || batch.size > 0)) {
                        full = true;
                        break;
                    }
                    batch.add(QueueEntryDescriptor.logOffset(entries, pos), size, recentRecords);
                    pending += size;
                }
                looked++;
            }
            batch.read(log, memory);
            for (int i = 0; i < batch.size; i++) {
                final StoredMessage message = batch.message(i, request.topic(), remember ? recentRecords : null);
                if (message != null && filter.matches(message.properties(), message.bornTimestamp())) {
                    found.add(message);
                    bytes += message.size();
                }
            }
            next += looked;
            scanned += looked;
            if (full && !found.isEmpty()) {
                break;
            }
        }
        final PullStatus status = found.isEmpty() ? PullStatus.NO_MATCHED_MESSAGE : PullStatus.FOUND;
        return new PullResult(status, found, next, queue.minOffset(), queue.maxOffset());
    }

    /**
     * The entries a pull picked from one look at its queue: messages the recent-records cache already had, and log
     * offsets of records to read (then read, through {@link CommitLog#readRecords}).
     */
    private static final class Batch {
        private final long[] offsets;
        private final int[] sizes;
        private final StoredMessage[] recent;
        private final ByteBuffer[] records;
        private int size;

        Batch(final int capacity) {
            offsets = new long[capacity];
            sizes = new int[capacity];
            recent = new StoredMessage[capacity];
            records = new ByteBuffer[capacity];
        }

        void clear() {
            size = 0;
        }

        void add(final long logOffset, final int entrySize, final RecentRecords recentRecords) {
            final StoredMessage m = recentRecords.get(logOffset);
            recent[size] = m;
            offsets[size] = m == null ? logOffset : -1;
            sizes[size] = entrySize;
            size++;
        }

        void read(final CommitLog log, final IntFunction<ByteBuffer> memory) {
            log.readRecords(offsets, sizes, size, records, memory);
        }

        /**
         * Entry {@code i}'s message, decoded (and shared with other readers through {@code recentRecords}, unless null)
         * when read from the log; or null.
         */
        StoredMessage message(final int i, final String topic, final RecentRecords recentRecords) {
            if (recent[i] != null) {
                final StoredMessage m = recent[i];
                recent[i] = null;
                return m;
            }
            final ByteBuffer record = records[i];
            if (record == null) {
                return null;
            }
            records[i] = null;
            final StoredMessage message = RecordCodec.decode(record, topic);
            if (recentRecords != null) {
                recentRecords.put(message);
            }
            return message;
        }
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
