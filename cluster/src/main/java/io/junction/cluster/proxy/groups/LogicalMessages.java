package io.junction.cluster.proxy.groups;

import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.nio.ByteBuffer;

/**
 * Turns a message a store group returned (its physical queue and offset) into the logical queue's view. A segment
 * made at creation maps one to one and the message goes back untouched; otherwise the copy carries the logical queue
 * id and offset, in its fields and in its stored record (front-ends hand the record to clients as it is).
 */
final class LogicalMessages {

    private LogicalMessages() {
    }

    /** The message as its logical queue sees it; unchanged when it is not of the placed topic or not in a segment. */
    static StoredMessage fromGroup(final TopicPlacement placement, final String group, final StoredMessage m) {
        if (placement == null || !m.topic().equals(placement.topic())) {
            return m;
        }
        for (int q = 0; q < placement.queueCount(); q++) {
            final QueueSegment s = placement.segmentOf(q, group, m.queueId(), m.queueOffset());
            if (s != null) {
                return s.identity(q) ? m : relabel(m, q, s.toLogical(m.queueOffset()));
            }
        }
        return m;
    }

    static StoredMessage relabel(final StoredMessage m, final int queue, final long offset) {
        if (m.queueId() == queue && m.queueOffset() == offset) {
            return m;
        }
        final ByteBuffer src = m.record().duplicate();
        final ByteBuffer record = ByteBuffer.allocate(src.remaining()).put(src).flip();
        record.putInt(RecordLayout.QUEUE_ID_OFFSET, queue);
        record.putLong(RecordLayout.QUEUE_OFFSET_OFFSET, offset);
        final int bodyOffset = RecordLayout.bodyLengthOffset(m.sysFlag()) + 4;
        final ByteBuffer body = record.duplicate().position(bodyOffset).limit(bodyOffset + m.body().remaining())
                .slice().asReadOnlyBuffer();
        return new StoredMessage(m.topic(), queue, offset, m.commitLogOffset(), m.size(), m.flag(), m.sysFlag(),
                m.bornTimestamp(), m.bornHost(), m.storeTimestamp(), m.storeHost(), m.reconsumeTimes(),
                m.preparedTransactionOffset(), m.properties(), body, record.asReadOnlyBuffer());
    }
}
