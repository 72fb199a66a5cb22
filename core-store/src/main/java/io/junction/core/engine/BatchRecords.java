package io.junction.core.engine;

import io.junction.core.log.RecordCodec;
import io.junction.core.message.Message;
import io.junction.core.message.MessageIds;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The records of a batch rendered back to back into one buffer, ready for {@code LogAppender.appendBatch}: where
 * each starts and the unique id each carries (assigned here when a member has none).
 *
 * @param buffer    the records, position 0 to limit
 * @param starts    where record k starts in the buffer
 * @param uniqueIds record k's unique id
 */
record BatchRecords(ByteBuffer buffer, int[] starts, String[] uniqueIds) {

    /**
     * Renders every member.
     *
     * @throws IllegalArgumentException when a member does not fit the record layout (topic or properties too long)
     */
    static BatchRecords encode(final List<Message> members, final InetSocketAddress storeHost) {
        final int n = members.size();
        final RecordCodec.Prepared[] records = new RecordCodec.Prepared[n];
        final String[] ids = new String[n];
        final int[] starts = new int[n];
        long total = 0;
        for (int k = 0; k < n; k++) {
            final Message m = members.get(k);
            final String id = m.uniqueId();
            final boolean assign = id == null || id.isEmpty();
            ids[k] = assign ? MessageIds.newUniqueId() : id;
            records[k] = RecordCodec.prepare(m, storeHost, assign ? ids[k] : null);
            starts[k] = (int) Math.min(total, Integer.MAX_VALUE);
            total += records[k].length();
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("batch of " + total + " bytes is too large for one write");
        }
        // Each record is rendered straight into the batch's buffer: a buffer per record, copied into this one, was
        // an allocation and a copy of every body more on the sender's thread (benchmarks/README.md, Kafka).
        final ByteBuffer buffer = ByteBuffer.allocate((int) total);
        for (RecordCodec.Prepared record : records) {
            record.writeTo(buffer);
        }
        return new BatchRecords(buffer.flip(), starts, ids);
    }

    /** Length of record k. */
    int length(final int k) {
        return (k + 1 < starts.length ? starts[k + 1] : buffer.limit()) - starts[k];
    }
}
