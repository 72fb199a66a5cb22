package io.junction.cluster.proxy;

import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.meta.KvConfig;
import io.junction.core.meta.TopicConfig;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Topic administration on a proxy: changes go to the leader and into the mirror as it answered; reads are the mirror's. */
final class ProxyTopics implements Messaging.TopicAdmin {
    private final ProxyMessaging proxy;
    private final MetadataMirror mirror;

    ProxyTopics(final ProxyMessaging proxy, final MetadataMirror mirror) {
        this.proxy = proxy;
        this.mirror = mirror;
    }

    @Override
    public CompletableFuture<TopicConfig> createOrUpdate(final TopicConfig config) {
        return proxy.forward(m -> m.admin().createOrUpdateTopic(config)).thenApply(this::mirrored);
    }

    @Override
    public CompletableFuture<TopicConfig> createIfAbsent(final TopicConfig config) {
        final Optional<TopicConfig> known = mirror.topics.get(config.name());
        if (known.isPresent()) {
            return CompletableFuture.completedFuture(known.get());
        }
        return proxy.forward(m -> m.admin().createTopicIfAbsent(config)).thenApply(this::mirrored);
    }

    private TopicConfig mirrored(final TopicConfig topic) {
        mirror.topics.putLocal(topic.name(), topic);
        return topic;
    }

    @Override
    public CompletableFuture<Boolean> delete(final String topic) {
        return proxy.forward(m -> m.admin().deleteTopic(topic)).thenApply(deleted -> {
            mirror.topics.removeLocal(topic);
            // The store deleted the topic's key-value items with it: read your own delete before the next refresh.
            SystemNames.TOPIC_SCOPED_KV.forEach(ns -> mirror.kv.removeLocal(KvConfig.id(ns, topic)));
            return deleted;
        });
    }

    /** Seals the queue on the group's leader (the write fence of scaling; nothing to mirror). */
    @Override
    public CompletableFuture<Long> sealQueue(final String topic, final int queueId) {
        return proxy.forward(m -> m.admin().sealQueue(topic, queueId));
    }

    @Override
    public Optional<TopicConfig> get(final String topic) {
        return mirror.topics.get(topic);
    }

    @Override
    public Collection<TopicConfig> list() {
        return mirror.topics.values();
    }
}
