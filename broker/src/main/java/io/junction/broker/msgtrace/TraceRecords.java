package io.junction.broker.msgtrace;

/**
 * RocketMQ's message trace record text, one record per call (as a string, or appended to a trace message's body), exactly as {@code TraceDataEncoder} of the RocketMQ
 * client writes and its tools decode it: fields separated by {@code \u0001}, each record ended by {@code \u0002}.
 *
 * <pre>
 * Pub       type ts region group topic msgId tags keys storeHost bodyLength costMs msgType offsetMsgId success
 * SubBefore type ts region group requestId msgId retryTimes keys
 * SubAfter  type requestId msgId costMs success keys contextCode ts
 * </pre>
 * {@code msgType} is the ordinal of RocketMQ's {@code MessageType} (see the constants); {@code contextCode} that of
 * {@code ConsumeReturnType}.
 */
final class TraceRecords {

    static final char CONTENT = '\u0001';
    static final char FIELD = '\u0002';
    static final String REGION = "DefaultRegion";

    /** RocketMQ's MessageType ordinals. */
    static final int NORMAL = 0;
    static final int TRANSACTION_HALF = 1;
    static final int DELAY = 3;
    static final int ORDER = 4;

    /** RocketMQ's ConsumeReturnType ordinals. */
    static final int CONSUMED = 0;
    static final int FAILED = 4;

    private TraceRecords() {
    }

    /** A publish: stored (or refused) after {@code costMs}. */
    static String pub(final long timestamp, final String group, final String topic, final String msgId,
                      final String tags, final String keys, final String storeHost, final int bodyLength,
                      final long costMs, final int msgType, final String offsetMsgId, final boolean success) {
        final StringBuilder out = new StringBuilder(256);
        pub(out, timestamp, group, topic, msgId, tags, keys, storeHost, bodyLength, costMs, msgType, offsetMsgId,
                success);
        return out.toString();
    }

    static void pub(final StringBuilder out, final long timestamp, final String group, final String topic,
                    final String msgId, final String tags, final String keys, final String storeHost,
                    final int bodyLength, final long costMs, final int msgType, final String offsetMsgId,
                    final boolean success) {
        out.append("Pub").append(CONTENT).append(timestamp).append(CONTENT)
                .append(REGION).append(CONTENT).append(group).append(CONTENT).append(topic).append(CONTENT)
                .append(msgId).append(CONTENT).append(text(tags)).append(CONTENT).append(text(keys)).append(CONTENT)
                .append(storeHost).append(CONTENT).append(bodyLength).append(CONTENT).append(costMs)
                .append(CONTENT).append(msgType).append(CONTENT).append(text(offsetMsgId)).append(CONTENT)
                .append(success).append(FIELD);
    }

    /** A delivery to a consumer of {@code group}, before it consumes. */
    static String subBefore(final long timestamp, final String group, final String requestId, final String msgId,
                            final int retryTimes, final String keys) {
        final StringBuilder out = new StringBuilder(128);
        subBefore(out, timestamp, group, requestId, msgId, retryTimes, keys);
        return out.toString();
    }

    static void subBefore(final StringBuilder out, final long timestamp, final String group, final String requestId,
                          final String msgId, final int retryTimes, final String keys) {
        out.append("SubBefore").append(CONTENT).append(timestamp).append(CONTENT)
                .append(REGION).append(CONTENT).append(group).append(CONTENT).append(requestId).append(CONTENT)
                .append(msgId).append(CONTENT).append(retryTimes).append(CONTENT).append(text(keys)).append(FIELD);
    }

    /** The consumer's outcome: acked ({@code success}) or given up (dead-lettered). */
    static String subAfter(final String requestId, final String msgId, final long costMs, final boolean success,
                           final String keys, final int contextCode, final long timestamp) {
        final StringBuilder out = new StringBuilder(128);
        subAfter(out, requestId, msgId, costMs, success, keys, contextCode, timestamp);
        return out.toString();
    }

    static void subAfter(final StringBuilder out, final String requestId, final String msgId, final long costMs,
                         final boolean success, final String keys, final int contextCode, final long timestamp) {
        out.append("SubAfter").append(CONTENT).append(requestId).append(CONTENT)
                .append(msgId).append(CONTENT).append(costMs).append(CONTENT).append(success).append(CONTENT)
                .append(text(keys)).append(CONTENT).append(contextCode).append(CONTENT).append(timestamp)
                .append(FIELD);
    }

    /** RocketMQ writes "null" for a missing field (StringBuilder of a null); the decoder reads it back as text. */
    private static String text(final String s) {
        return s == null ? "null" : s;
    }
}
