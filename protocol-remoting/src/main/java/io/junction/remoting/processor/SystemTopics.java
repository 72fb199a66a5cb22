package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.meta.TopicConfig;
import java.util.concurrent.CompletableFuture;

/** A consumer group's retry and dead-letter topics as RocketMQ names them: one queue each, created on demand. */
public final class SystemTopics {
    public static final String DEFAULT_MAX_RECONSUME = "16";

    private final Messaging messaging;

    public SystemTopics(final Messaging messaging) {
        this.messaging = messaging;
    }

    /** The group of a retry topic, or null when {@code topic} is not one. */
    public static String groupOfRetryTopic(final String topic) {
        return topic.startsWith(SystemNames.RETRY_PREFIX) ? topic.substring(SystemNames.RETRY_PREFIX.length()) : null;
    }

    /** Creates a one-queue topic unless it exists. */
    public CompletableFuture<TopicConfig> ensure(final String topic) {
        return messaging.topics().createIfAbsent(TopicConfig.of(topic, 1));
    }
}
