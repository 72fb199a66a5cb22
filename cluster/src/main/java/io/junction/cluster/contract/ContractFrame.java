package io.junction.cluster.contract;

/**
 * Layout of one contract frame, in both directions.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |        length of the rest of the frame (int32, excludes self) |  0
 * |                     request id (int64)                        |  4
 * |                                                               |
 * |  kind (int8)  |  body (operation-specific, ContractCodec) ...    12, 13
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>A request's kind is its {@link Operation} code; the answer carries the request's id with kind {@link #RESULT}
 * (the operation's result) or {@link #ERROR} (a {@code StoreError} name and a text). {@link Operation#CANCEL} names
 * the request to drop in its id and has no answer. A frame longer than the limit, or a header that does not make
 * sense (an unknown kind, an id in use), closes its connection; nothing else does. A request body that does not
 * decode is answered with an {@code ILLEGAL_ARGUMENT} error: its length kept the stream in step.
 */
final class ContractFrame {
    static final int LENGTH_OFFSET = 0;
    static final int LENGTH_FIELD = 4;
    static final int REQUEST_ID_OFFSET = 4;
    static final int KIND_OFFSET = 12;
    static final int BODY_OFFSET = 13;
    /** Bytes before the body, length field excluded. */
    static final int HEADER_AFTER_LENGTH = BODY_OFFSET - LENGTH_FIELD;

    /** Kind of an answer carrying the operation's result. */
    static final byte RESULT = 0x70;
    /** Kind of an answer carrying a failure: StoreError name, text. */
    static final byte ERROR = 0x71;

    /** Room for everything of a frame beyond the message bodies it carries (names, properties, filters). */
    static final int SLACK = 1 << 20;

    private ContractFrame() {
    }

    /** The frame limit for a store whose largest message body is {@code maxMessageSize}. */
    static int maxFrameLength(final int maxMessageSize) {
        return maxMessageSize + SLACK;
    }
}
