package io.junction.kafka;

import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;

/**
 * OffsetCommit and OffsetFetch: a group's committed offsets, kept durably by the core. A commit is taken from a
 * member of the current generation (or, while the group has no members, from a consumer without one: manual
 * assignment); a fetch of all topics reads every partition of every visible topic.
 */
final class OffsetApis {
    private final GroupCoordinator coordinator;
    private final KafkaTopics topics;

    OffsetApis(final GroupCoordinator coordinator, final KafkaTopics topics) {
        this.coordinator = coordinator;
        this.topics = topics;
    }

    CompletableFuture<ApiMessage> offsetCommit(final KafkaRequest request) {
        final OffsetCommitRequestData data = ((OffsetCommitRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        Errors groupError = GroupApis.groupError(scope, data.groupId());
        final String coreGroup = groupError == Errors.NONE ? scope.group(data.groupId()) : null;
        if (groupError == Errors.NONE) {
            final ConsumerGroup group = coordinator.existing(coreGroup);
            if (group != null) {
                groupError = group.checkCommit(data.memberId(), data.generationIdOrMemberEpoch());
            } else if (data.generationIdOrMemberEpoch() >= 0) {
                groupError = Errors.ILLEGAL_GENERATION;
            }
        }
        final List<OffsetCommitResponseTopic> out = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : data.topics()) {
            final List<OffsetCommitResponsePartition> parts = new ArrayList<>();
            final String core = t.name() == null ? null : scope.topic(t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                Errors error = groupError;
                if (error == Errors.NONE && KafkaTopics.isLegal(t.name()) && !scope.maySubscribe(core)) {
                    error = Errors.TOPIC_AUTHORIZATION_FAILED;
                }
                if (error == Errors.NONE && !exists(t.name(), core, p.partitionIndex())) {
                    error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                if (error == Errors.NONE && p.committedOffset() < 0) {
                    error = Errors.OFFSET_OUT_OF_RANGE;
                }
                if (error == Errors.NONE) {
                    coordinator.commit(coreGroup, core, p.partitionIndex(), p.committedOffset());
                }
                parts.add(new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(error.code()));
            }
            out.add(new OffsetCommitResponseTopic().setName(t.name()).setPartitions(parts));
        }
        return CompletableFuture.completedFuture(new OffsetCommitResponseData().setTopics(out));
    }

    CompletableFuture<ApiMessage> offsetFetch(final KafkaRequest request) {
        final OffsetFetchRequestData data = ((OffsetFetchRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        if (request.version() < 8) {
            final List<OffsetFetchResponseTopic> out = new ArrayList<>();
            final Errors refused = GroupApis.groupError(scope, data.groupId());
            if (refused != Errors.NONE) {
                return CompletableFuture.completedFuture(new OffsetFetchResponseData().setTopics(out)
                        .setErrorCode(refused.code()));
            }
            final String coreGroup = scope.group(data.groupId());
            final List<OffsetFetchRequestData.OffsetFetchRequestTopic> asked = data.topics();
            final List<TopicPartition> pairs = new ArrayList<>();
            if (asked == null) {
                allCommitted(scope, coreGroup, pairs);
            } else {
                asked.forEach(t -> t.partitionIndexes().forEach(p -> pairs.add(new TopicPartition(t.name(), p))));
            }
            for (TopicPartition pair : pairs) {
                final OffsetFetchResponseTopic topic = out.stream().filter(x -> x.name().equals(pair.topic()))
                        .findFirst().orElseGet(() -> {
                            final OffsetFetchResponseTopic t = new OffsetFetchResponseTopic().setName(pair.topic())
                                    .setPartitions(new ArrayList<>());
                            out.add(t);
                            return t;
                        });
                final int partition = pair.partition();
                topic.partitions().add(new OffsetFetchResponsePartition().setPartitionIndex(partition)
                        .setCommittedOffset(committed(scope, coreGroup, pair.topic(), partition)).setMetadata("")
                        .setCommittedLeaderEpoch(-1));
            }
            return CompletableFuture.completedFuture(new OffsetFetchResponseData().setTopics(out));
        }
        final List<OffsetFetchResponseGroup> groups = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : data.groups()) {
            groups.add(fetchGroup(scope, g));
        }
        return CompletableFuture.completedFuture(new OffsetFetchResponseData().setGroups(groups));
    }

    private OffsetFetchResponseGroup fetchGroup(final ClientScope scope,
                                                final OffsetFetchRequestData.OffsetFetchRequestGroup g) {
        final OffsetFetchResponseGroup group = new OffsetFetchResponseGroup().setGroupId(g.groupId());
        final Errors refused = GroupApis.groupError(scope, g.groupId());
        if (refused != Errors.NONE) {
            return group.setErrorCode(refused.code()).setTopics(List.of());
        }
        final String coreGroup = scope.group(g.groupId());
        final List<TopicPartition> pairs = new ArrayList<>();
        if (g.topics() == null) {
            allCommitted(scope, coreGroup, pairs);
        } else {
            g.topics().forEach(t -> t.partitionIndexes().forEach(p -> pairs.add(new TopicPartition(t.name(), p))));
        }
        final List<OffsetFetchResponseTopics> out = new ArrayList<>();
        for (TopicPartition pair : pairs) {
            final OffsetFetchResponseTopics topic = out.stream().filter(x -> x.name().equals(pair.topic())).findFirst()
                    .orElseGet(() -> {
                        final OffsetFetchResponseTopics t = new OffsetFetchResponseTopics().setName(pair.topic())
                                .setPartitions(new ArrayList<>());
                        out.add(t);
                        return t;
                    });
            final int partition = pair.partition();
            topic.partitions().add(new OffsetFetchResponsePartitions().setPartitionIndex(partition)
                    .setCommittedOffset(committed(scope, coreGroup, pair.topic(), partition)).setMetadata("")
                    .setCommittedLeaderEpoch(-1));
        }
        return group.setTopics(out);
    }

    /** Every partition the group has committed an offset in, found by asking every topic the client sees. */
    private void allCommitted(final ClientScope scope, final String coreGroup, final List<TopicPartition> pairs) {
        for (TopicConfig t : topics.list()) {
            final String name = scope.kafkaName(t.name());
            if (name == null) {
                continue;
            }
            for (int p = 0; p < t.queueCount(); p++) {
                if (coordinator.committed(coreGroup, t.name(), p) >= 0) {
                    pairs.add(new TopicPartition(name, p));
                }
            }
        }
    }

    /** The committed offset of a partition the client names ({@code topic}, a Kafka name). */
    private long committed(final ClientScope scope, final String coreGroup, final String topic,
                           final int partition) {
        return KafkaTopics.isLegal(topic) ? coordinator.committed(coreGroup, scope.topic(topic), partition) : -1;
    }

    private boolean exists(final String topic, final String core, final int partition) {
        if (topic == null || !KafkaTopics.isLegal(topic)) {
            return false;
        }
        final Optional<TopicConfig> t = topics.get(core);
        return t.isPresent() && partition >= 0 && partition < t.get().queueCount();
    }
}
