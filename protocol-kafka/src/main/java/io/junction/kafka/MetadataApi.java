package io.junction.kafka;

import io.junction.core.meta.TopicConfig;
import io.junction.tenancy.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;

/**
 * Metadata: this node is the only broker, the controller and every partition's leader; a partition per core queue.
 * Topics carry no id (clients then name topics in Fetch and Produce) and partitions no leader epoch (clients then skip
 * epoch validation). An unknown topic is created when the request allows it and {@code kafka.auto-create-topics} is on.
 */
final class MetadataApi implements ApiHandler {
    /** Kafka clients show the cluster id; a fixed one, since a single node is its own cluster. */
    static final String CLUSTER_ID = "junction-kafka-cluster0";

    private final KafkaTopics topics;
    private final int nodeId;

    MetadataApi(final KafkaTopics topics, final int nodeId) {
        this.topics = topics;
        this.nodeId = nodeId;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final MetadataRequestData data = ((MetadataRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<MetadataResponseTopic>> answers = new ArrayList<>();
        if (((MetadataRequest) request.body()).isAllTopics()) {
            for (TopicConfig t : topics.list()) {
                final String name = scope.kafkaName(t.name());
                if (name != null && scope.mayDescribe(t.name())) {
                    answers.add(CompletableFuture.completedFuture(describe(name, Optional.of(t))));
                }
            }
        } else {
            for (MetadataRequestData.MetadataRequestTopic t : data.topics()) {
                answers.add(describe(scope, t.name(), data.allowAutoTopicCreation()));
            }
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x -> {
            final MetadataResponseTopicCollection list = new MetadataResponseTopicCollection();
            answers.forEach(a -> list.add(a.join()));
            final MetadataResponseBrokerCollection brokers = new MetadataResponseBrokerCollection();
            brokers.add(new MetadataResponseBroker().setNodeId(nodeId)
                    .setHost(request.connection().advertisedHost()).setPort(request.connection().advertisedPort()));
            return new MetadataResponseData().setBrokers(brokers).setClusterId(CLUSTER_ID).setControllerId(nodeId)
                    .setTopics(list);
        });
    }

    /** The answer when Kafka clients are refused: this node as the broker, every topic asked for refused. */
    MetadataResponseData refused(final KafkaRequest request) {
        final MetadataRequestData data = ((MetadataRequest) request.body()).data();
        final MetadataResponseTopicCollection list = new MetadataResponseTopicCollection();
        if (data.topics() != null) {
            data.topics().forEach(t -> list.add(error(t.name(), Errors.TOPIC_AUTHORIZATION_FAILED)));
        }
        final MetadataResponseBrokerCollection brokers = new MetadataResponseBrokerCollection();
        brokers.add(new MetadataResponseBroker().setNodeId(nodeId)
                .setHost(request.connection().advertisedHost()).setPort(request.connection().advertisedPort()));
        return new MetadataResponseData().setBrokers(brokers).setClusterId(CLUSTER_ID).setControllerId(nodeId)
                .setTopics(list);
    }

    /**
     * A topic asked for by name: refused without any right on it; created when unknown, allowed by the request and
     * the settings, and the client may create or publish to it (as a RocketMQ send creates a topic with PUB alone;
     * otherwise it stays unknown, as Kafka answers then).
     */
    private CompletableFuture<MetadataResponseTopic> describe(final ClientScope scope, final String name,
                                                              final boolean create) {
        if (name == null) {
            return CompletableFuture.completedFuture(new MetadataResponseTopic()
                    .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
        if (!KafkaTopics.isLegal(name)) {
            return CompletableFuture.completedFuture(error(name, Errors.INVALID_TOPIC_EXCEPTION));
        }
        final String core = scope.topic(name);
        if (!scope.mayDescribe(core)) {
            return CompletableFuture.completedFuture(error(name, Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        final boolean mayCreate = create && (scope.mayPublish(core) || scope.mayAdminister(core, Action.CREATE));
        return topics.getOrCreate(core, mayCreate).handle((t, failure) -> failure != null
                ? error(name, creationError(failure)) : describe(name, t));
    }

    /** A name the topic rule does not create (a system topic's) is an invalid topic to Kafka clients. */
    private static Errors creationError(final Throwable failure) {
        final Errors error = KafkaErrors.of(failure);
        return error == Errors.INVALID_REQUEST ? Errors.INVALID_TOPIC_EXCEPTION : error;
    }

    private MetadataResponseTopic describe(final String name, final Optional<TopicConfig> topic) {
        if (topic.isEmpty()) {
            return error(name, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        final List<MetadataResponsePartition> partitions = new ArrayList<>();
        for (int i = 0; i < topic.get().queueCount(); i++) {
            partitions.add(new MetadataResponsePartition().setPartitionIndex(i).setLeaderId(nodeId)
                    .setLeaderEpoch(-1).setReplicaNodes(List.of(nodeId)).setIsrNodes(List.of(nodeId))
                    .setOfflineReplicas(List.of()));
        }
        return new MetadataResponseTopic().setName(name).setTopicId(Uuid.ZERO_UUID).setIsInternal(false)
                .setPartitions(partitions);
    }

    private static MetadataResponseTopic error(final String name, final Errors error) {
        return new MetadataResponseTopic().setName(name).setErrorCode(error.code()).setTopicId(Uuid.ZERO_UUID);
    }
}
