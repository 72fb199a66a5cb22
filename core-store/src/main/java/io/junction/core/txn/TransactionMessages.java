package io.junction.core.txn;

import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The two message rewrites of a transaction, and what marks a half message: parking a half message in
 * {@link SystemNames#HALF_TOPIC} ({@link #half}) and turning a half record into the real message a commit delivers
 * ({@link #committed}). Both keep the unique id, body, flag, user properties and born fields.
 */
public final class TransactionMessages {

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

    /**
     * The record to store in {@link SystemNames#HALF_TOPIC}: the message with {@code REAL_TOPIC}, {@code REAL_QID},
     * {@code TRAN_MSG=true} and the PREPARED transaction type.
     */
    public static Message half(final Message message, final String realTopic, final int realQueueId) {
        final Map<String, String> props = new LinkedHashMap<>(message.properties());
        props.put(MessageProperties.REAL_TOPIC, realTopic);
        props.put(MessageProperties.REAL_QUEUE_ID, Integer.toString(realQueueId));
        props.put(MessageProperties.TRANSACTION_PREPARED, "true");
        final int sysFlag = (message.sysFlag() & ~SYS_FLAG_TRANSACTION_MASK) | SYS_FLAG_PREPARED;
        return new Message(SystemNames.HALF_TOPIC, 0, message.body(), message.flag(), props, sysFlag, message.bornTimestamp(),
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
        final String topic = half.realTopic();
        if (topic == null) {
            return null;
        }
        final Map<String, String> props = new LinkedHashMap<>(half.properties());
        props.remove(MessageProperties.REAL_TOPIC);
        props.remove(MessageProperties.REAL_QUEUE_ID);
        props.remove(MessageProperties.TRANSACTION_PREPARED);
        props.remove(MessageProperties.CHECK_TIMES);
        props.remove(MessageProperties.CHECK_IMMUNITY_SECONDS);
        final int sysFlag = (half.sysFlag() & ~SYS_FLAG_TRANSACTION_MASK) | SYS_FLAG_COMMIT;
        return new Message(topic, half.realQueueId(), half.bodyBytes(), half.flag(), props, sysFlag,
                half.bornTimestamp(), half.bornHost(), half.reconsumeTimes());
    }

    /** The transaction id of a message: {@code __transactionId__}, else its unique id. */
    static String transactionId(final Map<String, String> properties) {
        final String id = properties.get(MessageProperties.TRANSACTION_ID);
        return id == null || id.isEmpty() ? properties.get(MessageProperties.UNIQUE_ID) : id;
    }

    /** Milliseconds before the first check-back: the immunity time when set and valid, else {@code fallback}. */
    static long firstCheckDelay(final Map<String, String> properties, final long fallback) {
        final String seconds = properties.get(MessageProperties.CHECK_IMMUNITY_SECONDS);
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
