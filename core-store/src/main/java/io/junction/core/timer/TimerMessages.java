package io.junction.core.timer;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The two message rewrites of a timer: parking a message in the timer topic ({@link #park}) and turning a parked
 * record back into the message for its real topic and queue ({@link #unpark}). Both keep the unique id, body, flag,
 * user properties and born fields.
 */
public final class TimerMessages {
    private TimerMessages() {
    }

    /**
     * The record to store in {@link TimerService#TOPIC}: the message with {@code REAL_TOPIC}, {@code REAL_QID} and
     * the resolved {@code TIMER_DELIVER_MS}. The delay the producer asked for stays as it was sent, as RocketMQ keeps
     * it on the message it delivers: a level ({@code DELAY}, above 18 recorded as 18) or a relative
     * {@code TIMER_DELAY_SEC} / {@code TIMER_DELAY_MS}. A level above 0 wins over the timer properties, so those are
     * dropped next to one (RocketMQ's broker clears them too).
     */
    public static Message park(final Message message, final String realTopic, final int realQueueId,
                               final long deliverAt) {
        final Map<String, String> props = new LinkedHashMap<>(message.properties());
        final long level = level(props.get(MessageProperties.DELAY_LEVEL));
        if (level > 0) {
            props.put(MessageProperties.DELAY_LEVEL, Long.toString(Math.min(level, DelayLevels.MAX_LEVEL)));
            props.remove(MessageProperties.DELAY_SEC);
            props.remove(MessageProperties.DELAY_MS);
        }
        props.put(MessageProperties.REAL_TOPIC, realTopic);
        props.put(MessageProperties.REAL_QUEUE_ID, Integer.toString(realQueueId));
        props.put(MessageProperties.DELIVER_AT, Long.toString(deliverAt));
        return new Message(TimerService.TOPIC, 0, message.body(), message.flag(), props, message.sysFlag(),
                message.bornTimestamp(), message.bornHost(), message.reconsumeTimes());
    }

    /**
     * The message a fired timer delivers: the real topic and queue, the same unique id, the properties without the
     * routing ones. The delay as sent ({@code DELAY}, {@code TIMER_DELAY_SEC}, {@code TIMER_DELAY_MS}) stays, so a
     * consumer reads the level it was sent with ({@code getDelayTimeLevel()}); so does {@code TIMER_DELIVER_MS}: it
     * is in the past now, and tells consumers when the message was due. The copy is appended without timer routing,
     * so these never delay it again.
     *
     * @return the message, or null when the record lacks its real topic (not a timer record)
     */
    public static Message unpark(final StoredMessage parked) {
        final String topic = parked.property(MessageProperties.REAL_TOPIC);
        if (topic == null || topic.isEmpty()) {
            return null;
        }
        int queueId;
        try {
            queueId = Integer.parseInt(parked.property(MessageProperties.REAL_QUEUE_ID));
        } catch (NumberFormatException e) {
            queueId = Message.ANY_QUEUE;
        }
        final Map<String, String> props = new LinkedHashMap<>(parked.properties());
        props.remove(MessageProperties.REAL_TOPIC);
        props.remove(MessageProperties.REAL_QUEUE_ID);
        return new Message(topic, queueId, parked.bodyBytes(), parked.flag(), props, parked.sysFlag(),
                parked.bornTimestamp(), parked.bornHost(), parked.reconsumeTimes());
    }

    /** Property of a recall marker: the unique id of the parked message it cancels. */
    public static final String RECALL_OF = "JUNCTION_RECALL_OF";

    /**
     * A recall marker, stored in {@link TimerService#TOPIC} after the parked record it cancels: the real topic, the
     * delivery time and {@link #RECALL_OF} name that record; no body. The timer service never delivers a marker.
     */
    public static Message recallMarker(final String realTopic, final String uniqueId, final long deliverAt) {
        return Message.builder(TimerService.TOPIC).queueId(0).body(new byte[0])
                .property(MessageProperties.REAL_TOPIC, realTopic)
                .property(MessageProperties.DELIVER_AT, Long.toString(deliverAt))
                .property(RECALL_OF, uniqueId).build();
    }

    /** The unique id a recall marker cancels, or null when the record is a parked message. */
    public static String recalledId(final StoredMessage record) {
        return record.property(RECALL_OF);
    }

    /** What identifies one parked message among recalls: real topic, unique id and delivery time. */
    static String recallKey(final String realTopic, final String uniqueId, final long deliverAt) {
        return realTopic + '\u0000' + uniqueId + '\u0000' + deliverAt;
    }

    /** The deliver time a parked record carries, or 0 (fire at once) when it is missing or garbled. */
    public static long deliverAt(final StoredMessage parked) {
        try {
            return Long.parseLong(parked.property(MessageProperties.DELIVER_AT));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** A delay level as sent, or 0 when it is missing or not a number (the send was timed by another property). */
    private static long level(final String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
