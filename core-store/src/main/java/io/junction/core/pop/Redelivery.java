package io.junction.core.pop;

import io.junction.core.SendResult;
import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Copies a message a group failed to consume: to the group's retry topic with one more delivery counted, or to its
 * dead-letter topic once the count exceeds the group's maximum (or the consumer gave up on it).
 */
final class Redelivery {
    /** Properties asking for a delivery time; a copy is due now, so the original's delay must not apply again. */
    private static final List<String> TIMER_PROPERTIES =
            List.of("DELAY", "TIMER_DELIVER_MS", "TIMER_DELAY_MS", "TIMER_DELAY_SEC");

    private final PopStore store;

    Redelivery(final PopStore store) {
        this.store = store;
    }

    /** A copy to the retry topic of the message's original topic, or to the dead-letter topic when out of tries. */
    CompletableFuture<SendResult> redeliver(final String group, final String queueTopic, final StoredMessage m) {
        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, queueTopic);
        final int attempts = m.reconsumeTimes() + 1;
        final GroupConfig config = store.group(group).orElse(GroupConfig.of(group));
        if (attempts > config.maxReconsumeTimes()) {
            return deadLetter(group, origin, m, attempts);
        }
        return toRetryTopic(group, origin, m, attempts);
    }

    /**
     * A copy to the retry topic with the delivery count unchanged: the consumer gave the message back unconsumed, so
     * this delivery did not fail and does not bring the dead-letter topic closer.
     */
    CompletableFuture<SendResult> giveBack(final String group, final String queueTopic, final StoredMessage m) {
        final String origin = m.properties().getOrDefault(MessageProperties.RETRY_TOPIC, queueTopic);
        return toRetryTopic(group, origin, m, m.reconsumeTimes());
    }

    private CompletableFuture<SendResult> toRetryTopic(final String group, final String origin, final StoredMessage m,
                                                       final int reconsumeTimes) {
        final String target = SystemNames.retryTopic(group, origin);
        final Message.Builder copy = Message.builder(target).queueId(0).body(m.bodyBytes()).flag(m.flag())
                .properties(m.properties()).sysFlag(m.sysFlag()).bornTimestamp(m.bornTimestamp())
                .bornHost(m.bornHost()).reconsumeTimes(reconsumeTimes).property(MessageProperties.RETRY_TOPIC, origin);
        // Redelivery is due now: a delay the original asked for must not apply again.
        for (String timerProperty : TIMER_PROPERTIES) {
            copy.property(timerProperty, null);
        }
        return store.ensureTopic(target, 1).thenCompose(t -> store.append(copy.build()));
    }

    /** A copy to the group's dead-letter topic, naming the topic and message id it came from. */
    CompletableFuture<SendResult> deadLetter(final String group, final String origin, final StoredMessage m,
                                             final int deliveries) {
        final String target = SystemNames.deadLetterTopic(group);
        final Message.Builder copy = Message.builder(target).queueId(0).body(m.bodyBytes()).flag(m.flag())
                .properties(m.properties()).sysFlag(m.sysFlag()).bornTimestamp(m.bornTimestamp())
                .bornHost(m.bornHost()).reconsumeTimes(deliveries)
                .property(MessageProperties.DLQ_ORIGIN_TOPIC, origin)
                .property(MessageProperties.DLQ_ORIGIN_ID, m.uniqueId())
                .property(MessageProperties.RETRY_TOPIC, null);
        for (String timerProperty : TIMER_PROPERTIES) {
            copy.property(timerProperty, null);
        }
        return store.ensureTopic(target, 1).thenCompose(t -> store.append(copy.build()));
    }
}
