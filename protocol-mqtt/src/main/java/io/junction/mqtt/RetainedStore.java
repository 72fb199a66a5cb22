package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.message.Message;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Retained messages, one per full MQTT topic, durable as a {@link CompactedLog} in the core topic
 * {@value CoreTopics#RETAINED} keyed by the MQTT topic; an empty retained payload clears it.
 */
final class RetainedStore {
    /** The core topic the retained message was published to. */
    static final String CORE_TOPIC = "mqtt.core.topic";

    record Retained(String coreTopic, Map<String, String> properties, byte[] body) {
    }

    private final CompactedLog log;

    RetainedStore(final Messaging messaging) {
        this.log = new CompactedLog(messaging, CoreTopics.RETAINED, MqttMessageMapping.TOPIC,
                System::currentTimeMillis);
    }

    CompletableFuture<Void> load() {
        return log.load();
    }

    CompactedLog log() {
        return log;
    }

    /** Stores a retained publish (the message as mapped for its own topic) or, with an empty body, clears it. */
    CompletableFuture<Void> retain(final Message mapped, final MqttNamespace namespace) {
        final String mqttTopic = mapped.properties().get(MqttMessageMapping.TOPIC);
        if (mqttTopic == null) {
            return CompletableFuture.completedFuture(null);
        }
        final String topic = namespace.core(mqttTopic);
        if (mapped.body().length == 0) {
            return log.remove(topic).thenApply(r -> null);
        }
        final Map<String, String> properties = new LinkedHashMap<>(mapped.properties());
        properties.put(MqttMessageMapping.RETAIN, "true");
        properties.put(CORE_TOPIC, mapped.topic());
        return log.put(topic, properties, mapped.body()).thenApply(r -> null);
    }

    /** The retained messages of {@code namespace} whose topics match {@code filter}. */
    List<Retained> matching(final TopicFilter filter, final MqttNamespace namespace) {
        final List<Retained> out = new ArrayList<>();
        for (Map.Entry<String, CompactedLog.Entry> e : log.entries()) {
            final String key = e.getKey();
            if (namespace.owns(key) && filter.matches(namespace.local(key))) {
                final CompactedLog.Entry entry = e.getValue();
                out.add(new Retained(entry.properties().getOrDefault(CORE_TOPIC,
                        namespace.core(CoreTopics.coreTopicOf(namespace.local(key)))), entry.properties(),
                        entry.body()));
            }
        }
        return out;
    }

    int size() {
        return log.size();
    }
}
