package io.junction.cluster.contract;

/** The contract operations that cross the wire, by their frame kind code. */
enum Operation {
    SEND(1),
    SEND_BATCH(2),
    PULL(3),
    POP(4),
    ACK(5),
    ACK_LIST(6),
    CHANGE_INVISIBLE_TIME(7),
    NACK(8),
    GIVE_BACK(9),
    DEAD_LETTER(10),
    RECALL(11),
    END_TRANSACTION(12),
    COMMIT_OFFSET(13),
    QUERY_OFFSET(14),
    SEARCH_OFFSET(15),
    EARLIEST_STORE_TIME(16),
    /** Drops the waiting request named by the frame's id (a long poll whose caller left); no answer. */
    CANCEL(17);

    private static final Operation[] BY_CODE = new Operation[32];

    static {
        for (Operation op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    final byte code;

    Operation(final int code) {
        this.code = (byte) code;
    }

    /** The operation of a kind code, or null when none has it. */
    static Operation of(final byte code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
