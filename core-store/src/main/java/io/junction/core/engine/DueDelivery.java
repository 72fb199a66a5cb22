package io.junction.core.engine;

import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.log.LogAppender;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.timer.DeliveryTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Delivers what the store itself produces for a client's queue: a timer that fell due, a committed half message. Such a
 * message was accepted while its queue was open; if the queue was sealed since (its writes moved to another store
 * group), appending it there would be refused forever, and this store cannot reach the other group. It goes to
 * {@link SystemNames#SEALED_FORWARD_TOPIC} instead, its real topic and physical queue in {@code REAL_TOPIC} and
 * {@code REAL_QID}; a proxy that knows the queue's placement carries it on to the logical queue's live segment.
 */
final class DueDelivery {
    private final SendPath sending;
    private final StoreTopics topics;
    private final LogAppender appender;

    DueDelivery(final SendPath sending, final StoreTopics topics, final LogAppender appender) {
        this.sending = sending;
        this.topics = topics;
        this.appender = appender;
    }

    CompletableFuture<SendResult> deliver(final Message message) {
        if (sealed(message)) {
            return forward(message);
        }
        // The seal may land between the look above and the append: the appender refuses it then (nothing stored).
        return sending.routed(message, DeliveryTime.NONE).exceptionallyCompose(e -> isSealedRefusal(e)
                ? forward(message) : CompletableFuture.failedFuture(e));
    }

    private boolean sealed(final Message message) {
        return message.queueId() >= 0 && appender.sealedEnd(message.topic(), message.queueId()) >= 0;
    }

    private CompletableFuture<SendResult> forward(final Message message) {
        final Map<String, String> props = new LinkedHashMap<>(message.properties());
        props.put(MessageProperties.REAL_TOPIC, message.topic());
        props.put(MessageProperties.REAL_QUEUE_ID, Integer.toString(message.queueId()));
        final Message forwarded = new Message(SystemNames.SEALED_FORWARD_TOPIC, 0, message.body(), message.flag(),
                props, message.sysFlag(), message.bornTimestamp(), message.bornHost(), message.reconsumeTimes());
        return topics.createIfAbsent(SystemNames.SEALED_FORWARD_TOPIC, 1)
                .thenCompose(t -> sending.routed(forwarded, DeliveryTime.NONE));
    }

    private static boolean isSealedRefusal(final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof StoreException se && se.error() == StoreError.QUEUE_SEALED;
    }
}
