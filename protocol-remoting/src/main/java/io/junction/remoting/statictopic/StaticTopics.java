package io.junction.remoting.statictopic;

import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where static topics are kept: the core's key-value configuration, namespace {@value #NAMESPACE}, key = topic. It
 * is durable, and behind a proxy it lives in the metadata group, so every node presenting the topic answers the
 * same mapping. Deleting the topic, by any path, deletes its item (the core keeps them in step).
 */
public final class StaticTopics {
    public static final String NAMESPACE = SystemNames.STATIC_TOPICS_NAMESPACE;

    private final Messaging.KvConfigs configs;

    public StaticTopics(final Messaging messaging) {
        this.configs = messaging.kvConfigs();
    }

    /** The static topic of that name, if it is one. */
    public Optional<StaticTopic> find(final String topic) {
        return configs.get(NAMESPACE, topic).flatMap(text -> StaticTopic.parseStored(topic, text));
    }

    public CompletableFuture<Void> save(final StaticTopic topic) {
        return configs.put(NAMESPACE, topic.topic(), topic.stored());
    }
}
