package io.junction.cluster.proxy.groups;

import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.nio.ByteBuffer;

/**
 * Turns a message a store group returned (its physical queue and offset, its group's commit-log offset) into what the
 * proxy hands out: the logical queue's view, the commit-log offset tagged with the group's number, a redelivered
 * message's queue numbered apart from other groups' ({@link GroupNumbering}). A message of the metadata group in a
 * segment made at creation goes back untouched; otherwise the copy carries the new numbers, in its fields and in its
 * stored record (front-ends hand the record to clients as it is).
 */
final class LogicalMessages {

    private LogicalMessages() {
    }

    /**
     * The message as the proxy hands it out.
     *
     * @param ordinal the group's number ({@link LiveGroupMap#ordinal})
     */
    static StoredMessage fromGroup(final TopicPlacement placement, final String group, final int ordinal,
                                   final StoredMessage m) {
        final long logOffset = GroupNumbering.tagged(ordinal, m.commitLogOffset());
        if (placement == null || !m.topic().equals(placement.topic())) {
            // Not of the placed topic: a redelivery from the group's retry topic (POP of the topic takes those too).
            return relabel(m, GroupNumbering.retryQueue(ordinal, m.queueId()), m.queueOffset(), logOffset);
        }
        for (int q = 0; q < placement.queueCount(); q++) {
            final QueueSegment s = placement.segmentOf(q, group, m.queueId(), m.queueOffset());
            if (s != null) {
                return relabel(m, q, s.toLogical(m.queueOffset()), logOffset);
            }
        }
        return relabel(m, m.queueId(), m.queueOffset(), logOffset);
    }

    static StoredMessage relabel(final StoredMessage m, final int queue, final long offset, final long logOffset) {
        if (m.queueId() == queue && m.queueOffset() == offset && m.commitLogOffset() == logOffset) {
            return m;
        }
        final ByteBuffer src = m.record().duplicate();
        final ByteBuffer record = ByteBuffer.allocate(src.remaining()).put(src).flip();
        record.putInt(RecordLayout.QUEUE_ID_OFFSET, queue);
        record.putLong(RecordLayout.QUEUE_OFFSET_OFFSET, offset);
        record.putLong(RecordLayout.PHYSICAL_OFFSET_OFFSET, logOffset);
        final int bodyOffset = RecordLayout.bodyLengthOffset(m.sysFlag()) + 4;
        final ByteBuffer body = record.duplicate().position(bodyOffset).limit(bodyOffset + m.body().remaining())
                .slice().asReadOnlyBuffer();
        return new StoredMessage(m.topic(), queue, offset, logOffset, m.size(), m.flag(), m.sysFlag(),
                m.bornTimestamp(), m.bornHost(), m.storeTimestamp(), m.storeHost(), m.reconsumeTimes(),
                m.preparedTransactionOffset(), m.properties(), body, record.asReadOnlyBuffer());
    }
}
