package io.junction.core.txn;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The two message rewrites of a transaction, and what marks a half message: parking a half message in
 * {@link #HALF_TOPIC} ({@link #half}) and turning a half record into the real message a commit delivers
 * ({@link #committed}). Both keep the unique id, body, flag, user properties and born fields.
 */
public final class TransactionMessages {
    /** System topic (one queue) holding half messages. */
    public static final String HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    /** System topic (one queue) holding op records: resolutions and checks. */
    public static final String OP_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
    /** Seconds before the first check-back of a half message (instead of the check interval). */
    public static final String CHECK_IMMUNITY_SECONDS = "CHECK_IMMUNITY_TIME_IN_SECONDS";
    /** Check-backs so far (RocketMQ's property; informational here, the count lives in op records). */
    public static final String CHECK_TIMES = "TRANSACTION_CHECK_TIMES";

    /** Transaction-type bits of the sys flag. */
    static final int SYS_FLAG_TRANSACTION_MASK = 0xC;
    static final int SYS_FLAG_PREPARED = 0x4;
    static final int SYS_FLAG_COMMIT = 0x8;

    private TransactionMessages() {
    }

    /** True when {@code message} is a half message: {@code TRAN_MSG=true} or the PREPARED transaction type. */
    public static boolean isHalf(final Message message) {
        return "true".equalsIgnoreCase(message.property(MessageProperties.TRANSACTION_PREPARED))
                || (message.sysFlag() & SYS_FLAG_TRANSACTION_MASK) == SYS_FLAG_PREPARED;
    }

    /** True for the store's own transaction topics (clients may not send to them). */
    public static boolean isSystemTopic(final String topic) {
        return HALF_TOPIC.equals(topic) || OP_TOPIC.equals(topic);
    }

    /**
     * The record to store in {@link #HALF_TOPIC}: the message with {@code REAL_TOPIC}, {@code REAL_QID},
     * {@code TRAN_MSG=true} and the PREPARED transaction type.
     */
    public static Message half(final Message message, final String realTopic, final int realQueueId) {
        final Map<String, String> props = new LinkedHashMap<>(message.properties());
        props.put(MessageProperties.REAL_TOPIC, realTopic);
        props.put(MessageProperties.REAL_QUEUE_ID, Integer.toString(realQueueId));
        props.put(MessageProperties.TRANSACTION_PREPARED, "true");
        final int sysFlag = (message.sysFlag() & ~SYS_FLAG_TRANSACTION_MASK) | SYS_FLAG_PREPARED;
        return new Message(HALF_TOPIC, 0, message.body(), message.flag(), props, sysFlag, message.bornTimestamp(),
                message.bornHost(), message.reconsumeTimes());
    }

    /**
     * The message a commit delivers: the real topic and queue, the same unique id, body and properties without the
     * transaction markers ({@code TRAN_MSG}, {@code REAL_TOPIC}, {@code REAL_QID}, check bookkeeping), the COMMIT
     * transaction type. {@code PGROUP} and {@code __transactionId__} stay.
     *
     * @return the message, or null when the record lacks its real topic (not a half record)
     */
    public static Message committed(final StoredMessage half) {
        final String topic = realTopic(half);
        if (topic == null) {
            return null;
        }
        final Map<String, String> props = new LinkedHashMap<>(half.properties());
        props.remove(MessageProperties.REAL_TOPIC);
        props.remove(MessageProperties.REAL_QUEUE_ID);
        props.remove(MessageProperties.TRANSACTION_PREPARED);
        props.remove(CHECK_TIMES);
        props.remove(CHECK_IMMUNITY_SECONDS);
        final int sysFlag = (half.sysFlag() & ~SYS_FLAG_TRANSACTION_MASK) | SYS_FLAG_COMMIT;
        return new Message(topic, realQueueId(half), half.bodyBytes(), half.flag(), props, sysFlag,
                half.bornTimestamp(), half.bornHost(), half.reconsumeTimes());
    }

    /** The topic a half record belongs to, or null. */
    public static String realTopic(final StoredMessage half) {
        final String topic = half.property(MessageProperties.REAL_TOPIC);
        return topic == null || topic.isEmpty() ? null : topic;
    }

    /** The queue a half record belongs to, or {@link Message#ANY_QUEUE} when missing or garbled. */
    public static int realQueueId(final StoredMessage half) {
        try {
            return Integer.parseInt(half.property(MessageProperties.REAL_QUEUE_ID));
        } catch (NumberFormatException e) {
            return Message.ANY_QUEUE;
        }
    }

    /** The transaction id of a message: {@code __transactionId__}, else its unique id. */
    static String transactionId(final Map<String, String> properties) {
        final String id = properties.get(MessageProperties.TRANSACTION_ID);
        return id == null || id.isEmpty() ? properties.get(MessageProperties.UNIQUE_ID) : id;
    }

    /** Milliseconds before the first check-back: the immunity time when set and valid, else {@code fallback}. */
    static long firstCheckDelay(final Map<String, String> properties, final long fallback) {
        final String seconds = properties.get(CHECK_IMMUNITY_SECONDS);
        if (seconds == null) {
            return fallback;
        }
        try {
            final long s = Long.parseLong(seconds.trim());
            return s > 0 ? s * 1000 : fallback;
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
