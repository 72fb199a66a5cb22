package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Retained messages, one per full MQTT topic.
 *
 * <p>Durable as a log: every retained PUBLISH (or clear, an empty payload) is also stored in the core topic
 * {@value CoreTopics#RETAINED} (one queue); at start the front-end replays it into the in-memory table, last record
 * per topic wins. The log is not compacted yet, so its replay grows with the number of retained publishes (within the
 * store's retention).
 */
final class RetainedStore {
    record Retained(String coreTopic, Map<String, String> properties, byte[] body) {
    }

    private final Messaging messaging;
    private final Map<String, Retained> table = new ConcurrentHashMap<>();

    RetainedStore(final Messaging messaging) {
        this.messaging = messaging;
    }

    /** Creates the log topic if needed and replays it. */
    CompletableFuture<Void> load() {
        final CompletableFuture<?> created = messaging.route(CoreTopics.RETAINED).isPresent()
                ? CompletableFuture.completedFuture(null)
                : messaging.topics().createIfAbsent(TopicConfig.of(CoreTopics.RETAINED, 1));
        return created.thenCompose(x -> replay(messaging.minOffset(CoreTopics.RETAINED, 0)));
    }

    private CompletableFuture<Void> replay(final long offset) {
        if (offset >= messaging.maxOffset(CoreTopics.RETAINED, 0)) {
            return CompletableFuture.completedFuture(null);
        }
        return messaging.pull(new PullRequest("mqtt-retained", CoreTopics.RETAINED, 0, offset, 256, null, 0))
                .thenCompose(r -> {
                    for (StoredMessage m : r.messages()) {
                        apply(m.properties(), m.bodyBytes());
                    }
                    if (r.status() == PullStatus.NO_SUCH_QUEUE || r.nextOffset() <= offset) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return replay(r.nextOffset());
                });
    }

    /** Stores a retained publish (the message as mapped for its own topic) or, with an empty body, clears it. */
    CompletableFuture<Void> retain(final Message mapped) {
        final Message record = Message.builder(CoreTopics.RETAINED).queueId(0).body(mapped.body())
                .properties(mapped.properties()).property(MqttMessageMapping.RETAIN, "true")
                .property("mqtt.core.topic", mapped.topic()).build();
        return messaging.send(record).thenAccept(r -> apply(record.properties(), record.body()));
    }

    private void apply(final Map<String, String> properties, final byte[] body) {
        final String topic = properties.get(MqttMessageMapping.TOPIC);
        if (topic == null) {
            return;
        }
        if (body.length == 0) {
            table.remove(topic);
        } else {
            table.put(topic, new Retained(properties.getOrDefault("mqtt.core.topic", CoreTopics.coreTopicOf(topic)),
                    properties, body));
        }
    }

    List<Retained> matching(final TopicFilter filter) {
        final List<Retained> out = new ArrayList<>();
        for (Map.Entry<String, Retained> e : table.entrySet()) {
            if (filter.matches(e.getKey())) {
                out.add(e.getValue());
            }
        }
        return out;
    }

    int size() {
        return table.size();
    }
}
