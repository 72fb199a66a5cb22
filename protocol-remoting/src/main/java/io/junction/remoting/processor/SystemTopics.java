package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import java.util.concurrent.CompletableFuture;

/** A consumer group's retry and dead-letter topics as RocketMQ names them: one queue each, created on demand. */
public final class SystemTopics {
    public static final String RETRY_PREFIX = "%RETRY%";
    public static final String DLQ_PREFIX = "%DLQ%";
    /** Property: the original topic of a retry message. */
    public static final String RETRY_TOPIC = "RETRY_TOPIC";
    public static final String ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID";
    public static final String DEFAULT_MAX_RECONSUME = "16";

    private final Messaging messaging;

    public SystemTopics(final Messaging messaging) {
        this.messaging = messaging;
    }

    public static String retryTopic(final String group) {
        return RETRY_PREFIX + group;
    }

    public static String deadLetterTopic(final String group) {
        return DLQ_PREFIX + group;
    }

    /** The group of a retry topic, or null when {@code topic} is not one. */
    public static String groupOfRetryTopic(final String topic) {
        return topic.startsWith(RETRY_PREFIX) ? topic.substring(RETRY_PREFIX.length()) : null;
    }

    /** Creates a one-queue topic unless it exists. */
    public CompletableFuture<TopicConfig> ensure(final String topic) {
        return messaging.topics().createIfAbsent(TopicConfig.of(topic, 1));
    }
}
