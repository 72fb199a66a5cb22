package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import io.junction.tenancy.Action;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;

/**
 * IncrementalAlterConfigs (set, delete, append to and subtract from list configs) and AlterConfigs (the legacy
 * request: the given configs replace all of the topic's) for topics: a topic's Kafka configs are its attributes
 * ({@link KafkaTopics#attributeOf}), so {@code cleanup.policy=compact} makes the core keep the latest value of each key
 * through retention. Broker configs are read-only (INVALID_REQUEST). Needs UPDATE on the topic.
 */
final class AlterConfigsApis {
    /** IncrementalAlterConfigs operations. */
    private static final byte SET = 0;
    private static final byte DELETE = 1;
    private static final byte APPEND = 2;
    private static final byte SUBTRACT = 3;
    private static final Set<String> POLICIES = Set.of("compact", "delete");

    private final Messaging messaging;
    private final KafkaTopics topics;

    AlterConfigsApis(final Messaging messaging, final KafkaTopics topics) {
        this.messaging = messaging;
        this.topics = topics;
    }

    /** The outcome of one resource. */
    private record Outcome(Errors error, String message) {
        static final Outcome OK = new Outcome(Errors.NONE, null);
    }

    CompletableFuture<ApiMessage> incrementalAlterConfigs(final KafkaRequest request) {
        final IncrementalAlterConfigsRequestData data = ((IncrementalAlterConfigsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse>> answers =
                new ArrayList<>();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource res : data.resources()) {
            final List<IncrementalAlterConfigsRequestData.AlterableConfig> changes = List.copyOf(res.configs());
            answers.add(alter(scope, res.resourceType(), res.resourceName(), data.validateOnly(), current -> {
                final Map<String, String> next = new LinkedHashMap<>(current);
                for (IncrementalAlterConfigsRequestData.AlterableConfig c : changes) {
                    final String attribute = KafkaTopics.attributeOf(c.name());
                    switch (c.configOperation()) {
                        case SET -> next.put(attribute, c.value());
                        case DELETE -> next.remove(attribute);
                        case APPEND, SUBTRACT -> {
                            final Set<String> items = new LinkedHashSet<>(split(next.get(attribute)));
                            if (c.configOperation() == APPEND) {
                                items.addAll(split(c.value()));
                            } else {
                                items.removeAll(split(c.value()));
                            }
                            if (items.isEmpty()) {
                                next.remove(attribute);
                            } else {
                                next.put(attribute, String.join(",", items));
                            }
                        }
                        default -> {
                            return null;
                        }
                    }
                }
                return next;
            }).thenApply(o -> new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(res.resourceType()).setResourceName(res.resourceName())
                    .setErrorCode(o.error.code()).setErrorMessage(o.message)));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x ->
                new IncrementalAlterConfigsResponseData()
                        .setResponses(answers.stream().map(CompletableFuture::join).toList()));
    }

    CompletableFuture<ApiMessage> alterConfigs(final KafkaRequest request) {
        final AlterConfigsRequestData data = ((AlterConfigsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<AlterConfigsResponseData.AlterConfigsResourceResponse>> answers =
                new ArrayList<>();
        for (AlterConfigsRequestData.AlterConfigsResource res : data.resources()) {
            final List<AlterConfigsRequestData.AlterableConfig> configs = List.copyOf(res.configs());
            answers.add(alter(scope, res.resourceType(), res.resourceName(), data.validateOnly(), current -> {
                // The legacy request states every config: the Kafka ones not named return to their defaults.
                final Map<String, String> next = new LinkedHashMap<>();
                current.forEach((k, v) -> {
                    if (KafkaTopics.configOf(k) == null) {
                        next.put(k, v);
                    }
                });
                configs.forEach(c -> {
                    if (c.value() != null) {
                        next.put(KafkaTopics.attributeOf(c.name()), c.value());
                    }
                });
                return next;
            }).thenApply(o -> new AlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(res.resourceType()).setResourceName(res.resourceName())
                    .setErrorCode(o.error.code()).setErrorMessage(o.message)));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x ->
                new AlterConfigsResponseData().setResponses(answers.stream().map(CompletableFuture::join).toList()));
    }

    /** Applies {@code change} (null for an unknown operation) to a topic's attributes. */
    private CompletableFuture<Outcome> alter(final ClientScope scope, final byte type, final String name,
                                             final boolean validateOnly,
                                             final UnaryOperator<Map<String, String>> change) {
        if (type == AdminApis.BROKER_RESOURCE) {
            return done(Errors.INVALID_REQUEST, "broker configs are read-only; set them in the broker's config");
        }
        if (type != AdminApis.TOPIC_RESOURCE) {
            return done(Errors.INVALID_REQUEST, "unsupported resource type " + type);
        }
        if (!KafkaTopics.isLegal(name)) {
            return done(Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
        }
        final String core = scope.topic(name);
        if (!scope.mayAdminister(core, Action.UPDATE)) {
            return done(Errors.TOPIC_AUTHORIZATION_FAILED, null);
        }
        final Optional<TopicConfig> topic = topics.get(core);
        if (topic.isEmpty()) {
            return done(Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
        }
        final Map<String, String> next = change.apply(topic.get().attributes());
        if (next == null) {
            return done(Errors.INVALID_REQUEST, "unknown config operation");
        }
        final String policy = next.get(TopicConfig.CLEANUP_POLICY);
        if (policy != null && !isValidPolicy(policy)) {
            return done(Errors.INVALID_CONFIG, "cleanup.policy is compact, delete or both");
        }
        if (validateOnly) {
            return CompletableFuture.completedFuture(Outcome.OK);
        }
        final TopicConfig t = topic.get();
        return messaging.topics().createOrUpdate(new TopicConfig(t.name(), t.queueCount(), t.type(), t.permissions(),
                next)).handle((x, failure) -> failure == null ? Outcome.OK
                : new Outcome(KafkaErrors.of(failure), failure.getMessage()));
    }

    /** Whether a cleanup.policy value is one Kafka knows: compact, delete, or both. */
    static boolean isValidPolicy(final String policy) {
        return !split(policy).isEmpty() && POLICIES.containsAll(split(policy));
    }

    private static List<String> split(final String list) {
        if (list == null || list.isBlank()) {
            return List.of();
        }
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static CompletableFuture<Outcome> done(final Errors error, final String message) {
        return CompletableFuture.completedFuture(new Outcome(error, message));
    }
}
