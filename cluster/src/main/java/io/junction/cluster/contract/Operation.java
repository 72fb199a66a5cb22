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
    CANCEL(17),
    /** Who leads the store group and where every member's contract server is (any member answers). */
    TOPOLOGY(18),
    /** The metadata a proxy mirrors: tables, queue offset ranges, consumer clients, retention. */
    MIRROR(19),
    BROWSE(20),
    LOOKUP(21),
    QUERY_BY_ID(22),
    QUERY_BY_KEY(23),
    QUERY_BY_TIME(24),
    TOPIC_CREATE_OR_UPDATE(25),
    TOPIC_CREATE_IF_ABSENT(26),
    TOPIC_DELETE(27),
    GROUP_CREATE_OR_UPDATE(28),
    GROUP_DELETE(29),
    GROUP_REDRIVE(30),
    GROUP_GET_OR_CREATE(31),
    KV_PUT(32),
    KV_DELETE(33),
    HEARTBEAT(34),
    UNREGISTER(35),
    LOCK_QUEUES(36),
    UNLOCK_QUEUES(37),
    LAG(38),
    RESET_OFFSETS(39),
    RUNTIME_FIGURES(40),
    /** Seals a physical queue (the write fence of scaling) and answers its final end. */
    SEAL_QUEUE(41),
    /** Sets a key-value item only while it holds the value given (compare-and-set); answers whether it did. */
    KV_REPLACE(42);

    private static final Operation[] BY_CODE = new Operation[64];

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
