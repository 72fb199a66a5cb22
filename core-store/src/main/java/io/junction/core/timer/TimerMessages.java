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
     * the resolved {@code TIMER_DELIVER_MS}, without the relative-delay and level properties.
     */
    public static Message park(final Message message, final String realTopic, final int realQueueId,
                               final long deliverAt) {
        final Map<String, String> props = withoutDirectives(message.properties());
        props.put(MessageProperties.REAL_TOPIC, realTopic);
        props.put(MessageProperties.REAL_QUEUE_ID, Integer.toString(realQueueId));
        props.put(MessageProperties.DELIVER_AT, Long.toString(deliverAt));
        return new Message(TimerService.TOPIC, 0, message.body(), message.flag(), props, message.sysFlag(),
                message.bornTimestamp(), message.bornHost(), message.reconsumeTimes());
    }

    /**
     * The message a fired timer delivers: the real topic and queue, the same unique id, the properties without the
     * routing ones. {@code TIMER_DELIVER_MS} stays (it is in the past now, and tells consumers when it was due).
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
        final Map<String, String> props = withoutDirectives(parked.properties());
        props.remove(MessageProperties.REAL_TOPIC);
        props.remove(MessageProperties.REAL_QUEUE_ID);
        final String deliverAt = parked.property(MessageProperties.DELIVER_AT);
        if (deliverAt != null) {
            props.put(MessageProperties.DELIVER_AT, deliverAt);
        }
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

    private static Map<String, String> withoutDirectives(final Map<String, String> properties) {
        final Map<String, String> props = new LinkedHashMap<>(properties);
        props.remove(MessageProperties.DELAY_LEVEL);
        props.remove(MessageProperties.DELAY_SEC);
        props.remove(MessageProperties.DELAY_MS);
        props.remove(MessageProperties.DELIVER_AT);
        return props;
    }
}
