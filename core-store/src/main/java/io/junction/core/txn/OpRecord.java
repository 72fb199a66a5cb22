package io.junction.core.txn;

import io.junction.core.SystemNames;
import java.nio.ByteBuffer;

/**
 * The body of an op record in {@link SystemNames#OP_TOPIC}: a half message was resolved, or checked back.
 *
 * <pre>
 *   0        1        2                                      10              14                       22
 *   +--------+--------+--------------------------------------+---------------+------------------------+
 *   | version| type   | half record's log offset (int64)     | checks (int32)| time, epoch ms (int64) |
 *   +--------+--------+--------------------------------------+---------------+------------------------+
 * </pre>
 * Type COMMIT and ROLLBACK close the half message for good; CHECK records the check count and time so the count
 * and the next check time survive a restart.
 *
 * @param halfOffset the half record's log offset (its identity)
 * @param checkTimes check-backs so far
 * @param time       when it happened (store clock)
 */
record OpRecord(Type type, long halfOffset, int checkTimes, long time) {
    static final byte VERSION = 1;
    static final int VERSION_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int HALF_OFFSET_OFFSET = 2;
    static final int CHECK_TIMES_OFFSET = 10;
    static final int TIME_OFFSET = 14;
    static final int LENGTH = 22;

    enum Type {
        COMMIT(1), ROLLBACK(2), CHECK(3);

        final byte code;

        Type(final int code) {
            this.code = (byte) code;
        }

        static Type of(final byte code) {
            for (Type t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            return null;
        }
    }

    byte[] encode() {
        final ByteBuffer buf = ByteBuffer.allocate(LENGTH);
        buf.put(VERSION_OFFSET, VERSION);
        buf.put(TYPE_OFFSET, type.code);
        buf.putLong(HALF_OFFSET_OFFSET, halfOffset);
        buf.putInt(CHECK_TIMES_OFFSET, checkTimes);
        buf.putLong(TIME_OFFSET, time);
        return buf.array();
    }

    /** The op record in {@code body}, or null when it is not one (wrong length, version or type). */
    static OpRecord decode(final ByteBuffer body) {
        if (body.remaining() != LENGTH) {
            return null;
        }
        final int base = body.position();
        if (body.get(base + VERSION_OFFSET) != VERSION) {
            return null;
        }
        final Type type = Type.of(body.get(base + TYPE_OFFSET));
        if (type == null) {
            return null;
        }
        return new OpRecord(type, body.getLong(base + HALF_OFFSET_OFFSET), body.getInt(base + CHECK_TIMES_OFFSET),
                body.getLong(base + TIME_OFFSET));
    }

    boolean closes() {
        return type != Type.CHECK;
    }
}
