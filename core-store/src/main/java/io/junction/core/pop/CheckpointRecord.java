package io.junction.core.pop;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Bodies of the records that make POP state durable. They are appended to the revive topic like any message, so
 * they share the log's durability and order; replaying the revive queues after a restart rebuilds what is in flight.
 *
 * <pre>
 * checkpoint: type 1 (3 when tracked in place: FIFO and in-place groups) | id int64 | deadline int64 | queue id int32 | count int32 | count x (queue offset int64,
 *             reconsume times int32) | group (int16 length + UTF-8) | topic (int16 length + UTF-8)
 * ack:        type 2 | checkpoint id int64 | index int32
 * acks:       type 5 | count int32 | count x (checkpoint id int64, index int32)   (several acks of one revive queue,
 *                                                          at most {@value #MAX_ACKS} per record)
 * release:    type 4 | checkpoint id int64 | index int32   (tracked in place: the delivery timed out or was given
 *                                                          back, the message is available again in place with one
 *                                                          more delivery counted)
 * give-back:  type 6 | checkpoint id int64 | index int32   (tracked in place: the consumer gave the message back
 *                                                          unconsumed, it is available again in place with its
 *                                                          delivery count unchanged)
 * </pre>
 */
final class CheckpointRecord {
    static final byte CHECKPOINT = 1;
    static final byte ACK = 2;
    static final byte FIFO_CHECKPOINT = 3;
    static final byte RELEASE = 4;
    static final byte ACKS = 5;
    static final byte GIVE_BACK = 6;
    static final int MAX_ACKS = 1024;

    private CheckpointRecord() {
    }

    static byte[] checkpoint(final boolean inPlace, final long id, final long deadline, final String group,
                             final String topic, final int queueId, final long[] offsets,
                             final int[] reconsumeTimes) {
        final byte[] g = group.getBytes(StandardCharsets.UTF_8);
        final byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buf = ByteBuffer.allocate(1 + 8 + 8 + 4 + 4 + offsets.length * 12 + 2 + g.length + 2
                + t.length);
        buf.put(inPlace ? FIFO_CHECKPOINT : CHECKPOINT).putLong(id).putLong(deadline).putInt(queueId)
                .putInt(offsets.length);
        for (int i = 0; i < offsets.length; i++) {
            buf.putLong(offsets[i]).putInt(reconsumeTimes[i]);
        }
        buf.putShort((short) g.length).put(g).putShort((short) t.length).put(t);
        return buf.array();
    }

    static byte[] ack(final long checkpointId, final int index) {
        return ByteBuffer.allocate(13).put(ACK).putLong(checkpointId).putInt(index).array();
    }

    /** Acks of several messages: {@code checkpointIds[i]}'s message {@code indexes[i]}. */
    static byte[] acks(final long[] checkpointIds, final int[] indexes) {
        final int count = checkpointIds.length;
        if (count > MAX_ACKS) {
            throw new IllegalArgumentException("at most " + MAX_ACKS + " acks per record");
        }
        final ByteBuffer buf = ByteBuffer.allocate(1 + 4 + count * 12).put(ACKS).putInt(count);
        for (int i = 0; i < count; i++) {
            buf.putLong(checkpointIds[i]).putInt(indexes[i]);
        }
        return buf.array();
    }

    static byte[] release(final long checkpointId, final int index) {
        return ByteBuffer.allocate(13).put(RELEASE).putLong(checkpointId).putInt(index).array();
    }

    static byte[] giveBack(final long checkpointId, final int index) {
        return ByteBuffer.allocate(13).put(GIVE_BACK).putLong(checkpointId).putInt(index).array();
    }

    /** A decoded checkpoint record. */
    record Checkpoint(boolean inPlace, long id, long deadline, String group, String topic, int queueId, long[] offsets,
                      int[] reconsumeTimes) {
    }

    /** A decoded ack record. */
    record Ack(long checkpointId, int index) {
    }

    /** A decoded record of several acks: {@code checkpointIds[i]}'s message {@code indexes[i]}. */
    record Acks(long[] checkpointIds, int[] indexes) {
    }

    /**
     * A decoded release or give-back record.
     *
     * @param counted a release (the delivery counts); false for a give-back (the consumer returned it unconsumed)
     */
    record Release(long checkpointId, int index, boolean counted) {
    }

    /** Decodes a record body: a {@link Checkpoint}, {@link Ack}, {@link Acks} or {@link Release}, else null. */
    static Object decode(final ByteBuffer body) {
        try {
            final ByteBuffer b = body.duplicate();
            final byte type = b.get();
            if (type == ACK) {
                return new Ack(b.getLong(), b.getInt());
            }
            if (type == ACKS) {
                final int count = b.getInt();
                if (count < 0 || count > MAX_ACKS) {
                    return null;
                }
                final long[] ids = new long[count];
                final int[] indexes = new int[count];
                for (int i = 0; i < count; i++) {
                    ids[i] = b.getLong();
                    indexes[i] = b.getInt();
                }
                return new Acks(ids, indexes);
            }
            if (type == RELEASE || type == GIVE_BACK) {
                return new Release(b.getLong(), b.getInt(), type == RELEASE);
            }
            if (type != CHECKPOINT && type != FIFO_CHECKPOINT) {
                return null;
            }
            final long id = b.getLong();
            final long deadline = b.getLong();
            final int queueId = b.getInt();
            final int count = b.getInt();
            if (count < 0 || count > 1024) {
                return null;
            }
            final long[] offsets = new long[count];
            final int[] reconsume = new int[count];
            for (int i = 0; i < count; i++) {
                offsets[i] = b.getLong();
                reconsume[i] = b.getInt();
            }
            final String group = string(b);
            final String topic = string(b);
            return new Checkpoint(type == FIFO_CHECKPOINT, id, deadline, group, topic, queueId, offsets, reconsume);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String string(final ByteBuffer b) {
        final byte[] bytes = new byte[b.getShort() & 0xFFFF];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
