package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.tenancy.Action;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResultCollection;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResultCollection;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResultCollection;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBrokerCollection;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;

/**
 * What AdminClient (and Kafka Streams) needs to manage topics: DescribeCluster, CreateTopics (configs kept as topic
 * attributes {@code kafka.<name>}, replication factor 1 only), DeleteTopics, CreatePartitions (more queues),
 * DescribeConfigs (topic and broker) and DeleteRecords (moves the partition's Kafka log start offset, see
 * {@link KafkaTopics#logStartOffset}).
 */
final class AdminApis {
    /** DescribeConfigs resource types. */
    static final byte TOPIC_RESOURCE = 2;
    static final byte BROKER_RESOURCE = 4;
    /** DescribeConfigs config sources. */
    private static final byte DYNAMIC_TOPIC_CONFIG = 1;
    private static final byte DEFAULT_CONFIG = 5;

    private final Messaging messaging;
    private final KafkaTopics topics;
    private final KafkaSettings settings;

    AdminApis(final Messaging messaging, final KafkaTopics topics, final KafkaSettings settings) {
        this.messaging = messaging;
        this.topics = topics;
        this.settings = settings;
    }

    CompletableFuture<ApiMessage> describeCluster(final KafkaRequest request) {
        if (!request.connection().scope().mayDescribeCluster()) {
            return CompletableFuture.completedFuture(new DescribeClusterResponseData()
                    .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()).setClusterId(MetadataApi.CLUSTER_ID)
                    .setControllerId(-1).setEndpointType((byte) 1));
        }
        final DescribeClusterBrokerCollection brokers = new DescribeClusterBrokerCollection();
        brokers.add(new DescribeClusterBroker().setBrokerId(settings.nodeId())
                .setHost(request.connection().advertisedHost()).setPort(request.connection().advertisedPort()));
        return CompletableFuture.completedFuture(new DescribeClusterResponseData().setClusterId(MetadataApi.CLUSTER_ID)
                .setControllerId(settings.nodeId()).setBrokers(brokers).setEndpointType((byte) 1));
    }

    CompletableFuture<ApiMessage> createTopics(final KafkaRequest request) {
        final CreateTopicsRequestData data = ((CreateTopicsRequest) request.body()).data();
        final List<CompletableFuture<CreatableTopicResult>> answers = new ArrayList<>();
        for (CreatableTopic t : data.topics()) {
            answers.add(createTopic(request.connection().scope(), t, data.validateOnly()));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x -> {
            final CreatableTopicResultCollection results = new CreatableTopicResultCollection();
            answers.forEach(a -> results.add(a.join()));
            return new CreateTopicsResponseData().setTopics(results);
        });
    }

    private CompletableFuture<CreatableTopicResult> createTopic(final ClientScope scope, final CreatableTopic t,
                                                                final boolean validateOnly) {
        final CreatableTopicResult r = new CreatableTopicResult().setName(t.name()).setTopicId(Uuid.ZERO_UUID)
                .setNumPartitions(-1).setReplicationFactor((short) -1);
        final int partitions = t.numPartitions() == -1 ? settings.topicPartitions() : t.numPartitions();
        if (!KafkaTopics.isLegal(t.name())) {
            return failed(r, Errors.INVALID_TOPIC_EXCEPTION, "not a legal Kafka topic name");
        }
        final String core = scope.topic(t.name());
        if (!scope.mayAdminister(core, Action.CREATE)) {
            return failed(r, Errors.TOPIC_AUTHORIZATION_FAILED, "not allowed to create " + t.name());
        }
        if (!t.assignments().isEmpty() || partitions < 1 || partitions > TopicConfig.MAX_QUEUES) {
            return failed(r, Errors.INVALID_PARTITIONS, "partitions must be 1.." + TopicConfig.MAX_QUEUES
                    + " without manual assignments");
        }
        if (t.replicationFactor() != -1 && t.replicationFactor() != 1) {
            return failed(r, Errors.INVALID_REPLICATION_FACTOR, "this node keeps one copy of each partition");
        }
        if (topics.get(core).isPresent()) {
            return failed(r, Errors.TOPIC_ALREADY_EXISTS, "topic " + t.name() + " already exists");
        }
        final Map<String, String> attributes = new LinkedHashMap<>();
        t.configs().forEach(c -> {
            if (c.value() != null) {
                attributes.put(KafkaTopics.attributeOf(c.name()), c.value());
            }
        });
        final String policy = attributes.get(TopicConfig.CLEANUP_POLICY);
        if (policy != null && !AlterConfigsApis.isValidPolicy(policy)) {
            return failed(r, Errors.INVALID_CONFIG, "cleanup.policy is compact, delete or both");
        }
        r.setNumPartitions(partitions).setReplicationFactor((short) 1).setConfigs(topicConfigs(attributes, null));
        if (validateOnly) {
            return CompletableFuture.completedFuture(r);
        }
        final TopicConfig config = new TopicConfig(core, partitions, TopicType.NORMAL,
                TopicConfig.PERM_READ_WRITE, attributes);
        return messaging.topics().createIfAbsent(config).handle((created, failure) -> {
            if (failure != null) {
                return r.setErrorCode(KafkaErrors.of(failure).code()).setErrorMessage(failure.getMessage());
            }
            if (!created.equals(config)) {
                return r.setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code()).setErrorMessage("created meanwhile");
            }
            return r;
        });
    }

    CompletableFuture<ApiMessage> deleteTopics(final KafkaRequest request) {
        final DeleteTopicsRequestData data = ((DeleteTopicsRequest) request.body()).data();
        final List<String> names = new ArrayList<>(data.topicNames());
        data.topics().forEach(t -> names.add(t.name()));
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<DeletableTopicResult>> answers = new ArrayList<>();
        for (String name : names) {
            final DeletableTopicResult r = new DeletableTopicResult().setName(name).setTopicId(Uuid.ZERO_UUID);
            if (name != null && KafkaTopics.isLegal(name)
                    && !scope.mayAdminister(scope.topic(name), Action.DELETE)) {
                answers.add(CompletableFuture.completedFuture(r.setErrorCode(
                        Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                continue;
            }
            if (name == null || !KafkaTopics.isLegal(name) || topics.get(scope.topic(name)).isEmpty()) {
                answers.add(CompletableFuture.completedFuture(r.setErrorCode(
                        (name == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code())));
                continue;
            }
            answers.add(messaging.topics().delete(scope.topic(name)).handle((deleted, failure) -> failure != null
                    ? r.setErrorCode(KafkaErrors.of(failure).code())
                    : deleted ? r : r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x -> {
            final DeletableTopicResultCollection results = new DeletableTopicResultCollection();
            answers.forEach(a -> results.add(a.join()));
            return new DeleteTopicsResponseData().setResponses(results);
        });
    }

    CompletableFuture<ApiMessage> createPartitions(final KafkaRequest request) {
        final CreatePartitionsRequestData data = ((CreatePartitionsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<CreatePartitionsTopicResult>> answers = new ArrayList<>();
        for (CreatePartitionsRequestData.CreatePartitionsTopic t : data.topics()) {
            final CreatePartitionsTopicResult r = new CreatePartitionsTopicResult().setName(t.name());
            final boolean legal = KafkaTopics.isLegal(t.name());
            final Optional<TopicConfig> topic = legal ? topics.get(scope.topic(t.name())) : Optional.empty();
            if (legal && !scope.mayAdminister(scope.topic(t.name()), Action.UPDATE)) {
                answers.add(CompletableFuture.completedFuture(r.setErrorCode(
                        Errors.TOPIC_AUTHORIZATION_FAILED.code())));
            } else if (topic.isEmpty()) {
                answers.add(CompletableFuture.completedFuture(r.setErrorCode(
                        Errors.UNKNOWN_TOPIC_OR_PARTITION.code())));
            } else if (t.count() <= topic.get().queueCount() || t.count() > TopicConfig.MAX_QUEUES
                    || t.assignments() != null && !t.assignments().isEmpty()) {
                answers.add(CompletableFuture.completedFuture(r.setErrorCode(Errors.INVALID_PARTITIONS.code())
                        .setErrorMessage("the topic has " + topic.get().queueCount() + " partitions; ask for more, "
                                + "at most " + TopicConfig.MAX_QUEUES + ", without manual assignments")));
            } else if (data.validateOnly()) {
                answers.add(CompletableFuture.completedFuture(r));
            } else {
                final TopicConfig c = topic.get();
                answers.add(messaging.topics().createOrUpdate(new TopicConfig(c.name(), t.count(), c.type(),
                        c.permissions(), c.attributes())).handle((x, failure) -> failure == null ? r
                        : r.setErrorCode(KafkaErrors.of(failure).code())));
            }
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x ->
                new CreatePartitionsResponseData().setResults(answers.stream().map(CompletableFuture::join).toList()));
    }

    CompletableFuture<ApiMessage> describeConfigs(final KafkaRequest request) {
        final DescribeConfigsRequestData data = ((DescribeConfigsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final List<DescribeConfigsResult> results = new ArrayList<>();
        for (DescribeConfigsRequestData.DescribeConfigsResource res : data.resources()) {
            final DescribeConfigsResult r = new DescribeConfigsResult().setResourceType(res.resourceType())
                    .setResourceName(res.resourceName()).setConfigs(new ArrayList<>());
            if (res.resourceType() == TOPIC_RESOURCE) {
                final boolean legal = KafkaTopics.isLegal(res.resourceName());
                final String core = legal ? scope.topic(res.resourceName()) : null;
                if (legal && !scope.mayDescribe(core)) {
                    results.add(r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                    continue;
                }
                final Optional<TopicConfig> t = legal ? topics.get(core) : Optional.empty();
                if (t.isEmpty()) {
                    results.add(r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    continue;
                }
                topicConfigs(t.get().attributes(), res.configurationKeys()).forEach(c -> r.configs().add(
                        new DescribeConfigsResourceResult().setName(c.name()).setValue(c.value())
                                .setReadOnly(false).setConfigSource(c.configSource()).setIsSensitive(false)
                                .setSynonyms(List.of())));
            } else if (res.resourceType() == BROKER_RESOURCE && !scope.mayDescribeCluster()) {
                r.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            } else if (res.resourceType() == BROKER_RESOURCE) {
                brokerConfigs().forEach((name, value) -> {
                    if (res.configurationKeys() == null || res.configurationKeys().contains(name)) {
                        r.configs().add(new DescribeConfigsResourceResult().setName(name).setValue(value)
                                .setReadOnly(true).setConfigSource(DEFAULT_CONFIG).setIsSensitive(false)
                                .setSynonyms(List.of()));
                    }
                });
            } else {
                r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("unsupported resource type");
            }
            results.add(r);
        }
        return CompletableFuture.completedFuture(new DescribeConfigsResponseData().setResults(results));
    }

    /** A topic's configs: the ones it was created with, over the defaults this broker applies. */
    private List<CreatableTopicConfigs> topicConfigs(final Map<String, String> attributes, final List<String> keys) {
        final Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("cleanup.policy", "delete");
        defaults.put("retention.ms", Long.toString(messaging.retention().toMillis()));
        defaults.put("max.message.bytes", Integer.toString(settings.maxRequestSize()));
        defaults.put("message.timestamp.type", "CreateTime");
        defaults.put("min.insync.replicas", "1");
        final Map<String, Byte> sources = new HashMap<>();
        final Map<String, String> all = new LinkedHashMap<>(defaults);
        defaults.keySet().forEach(k -> sources.put(k, DEFAULT_CONFIG));
        attributes.forEach((k, v) -> {
            final String name = KafkaTopics.configOf(k);
            if (name != null) {
                all.put(name, v);
                sources.put(name, DYNAMIC_TOPIC_CONFIG);
            }
        });
        final List<CreatableTopicConfigs> out = new ArrayList<>();
        all.forEach((name, value) -> {
            if (keys == null || keys.isEmpty() || keys.contains(name)) {
                out.add(new CreatableTopicConfigs().setName(name).setValue(value).setConfigSource(sources.get(name))
                        .setReadOnly(false).setIsSensitive(false));
            }
        });
        return out;
    }

    private Map<String, String> brokerConfigs() {
        final Map<String, String> c = new LinkedHashMap<>();
        c.put("num.partitions", Integer.toString(settings.topicPartitions()));
        c.put("auto.create.topics.enable", Boolean.toString(settings.autoCreateTopics()));
        c.put("default.replication.factor", "1");
        c.put("min.insync.replicas", "1");
        c.put("log.retention.ms", Long.toString(messaging.retention().toMillis()));
        c.put("socket.request.max.bytes", Integer.toString(settings.maxRequestSize()));
        c.put("group.initial.rebalance.delay.ms", Integer.toString(settings.initialRebalanceDelayMs()));
        return c;
    }

    CompletableFuture<ApiMessage> deleteRecords(final KafkaRequest request) {
        final DeleteRecordsRequestData data = ((DeleteRecordsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final DeleteRecordsTopicResultCollection results = new DeleteRecordsTopicResultCollection();
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : data.topics()) {
            final DeleteRecordsPartitionResultCollection parts = new DeleteRecordsPartitionResultCollection();
            final boolean legal = KafkaTopics.isLegal(t.name());
            final String core = legal ? scope.topic(t.name()) : null;
            final boolean allowed = legal && scope.mayAdminister(core, Action.DELETE);
            final Optional<TopicConfig> topic = allowed ? topics.get(core) : Optional.empty();
            for (DeleteRecordsRequestData.DeleteRecordsPartition p : t.partitions()) {
                final DeleteRecordsPartitionResult r = new DeleteRecordsPartitionResult()
                        .setPartitionIndex(p.partitionIndex()).setLowWatermark(-1);
                if (legal && !allowed) {
                    parts.add(r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                    continue;
                }
                if (topic.isEmpty() || p.partitionIndex() < 0 || p.partitionIndex() >= topic.get().queueCount()) {
                    parts.add(r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    continue;
                }
                final long end = messaging.maxOffset(core, p.partitionIndex());
                // -1 means "up to the high watermark".
                final long before = p.offset() == -1 ? end : p.offset();
                if (before < 0 || before > end) {
                    parts.add(r.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code()));
                    continue;
                }
                parts.add(r.setLowWatermark(topics.deleteRecordsBefore(core, p.partitionIndex(), before)));
            }
            results.add(new DeleteRecordsTopicResult().setName(t.name()).setPartitions(parts));
        }
        return CompletableFuture.completedFuture(new DeleteRecordsResponseData().setTopics(results));
    }

    private static CompletableFuture<CreatableTopicResult> failed(final CreatableTopicResult r, final Errors error,
                                                                  final String message) {
        return CompletableFuture.completedFuture(r.setErrorCode(error.code()).setErrorMessage(message));
    }
}
