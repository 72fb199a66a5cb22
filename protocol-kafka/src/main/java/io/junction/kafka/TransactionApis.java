package io.junction.kafka;

import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;

/**
 * InitProducerId (idempotent and transactional producers), AddPartitionsToTxn (the client form, versions up to 3),
 * AddOffsetsToTxn, TxnOffsetCommit and EndTxn, on the {@link TransactionCoordinator}. The transactional id is not an
 * ACL resource: the partitions and groups a transaction touches are checked (PUB on topics, SUB on groups and on the
 * topics whose offsets it commits).
 */
final class TransactionApis {
    private final ProducerStates producers;
    private final TransactionCoordinator transactions;
    private final GroupCoordinator groups;
    private final KafkaTopics topics;

    TransactionApis(final ProducerStates producers, final TransactionCoordinator transactions,
                    final GroupCoordinator groups, final KafkaTopics topics) {
        this.producers = producers;
        this.transactions = transactions;
        this.groups = groups;
        this.topics = topics;
    }

    CompletableFuture<ApiMessage> initProducerId(final KafkaRequest request) {
        final InitProducerIdRequestData data = ((InitProducerIdRequest) request.body()).data();
        final InitProducerIdResponseData r = new InitProducerIdResponseData();
        if (data.transactionalId() == null) {
            return done(r.setProducerId(producers.newProducerId()).setProducerEpoch((short) 0));
        }
        if (data.transactionalId().isEmpty() || data.enable2Pc() || data.keepPreparedTxn()) {
            return done(r.setErrorCode(Errors.INVALID_REQUEST.code()).setProducerId(-1).setProducerEpoch((short) -1));
        }
        return transactions.init(request.connection().scope().group(data.transactionalId()),
                data.transactionTimeoutMs(), data.producerId(), data.producerEpoch()).thenApply(id -> r
                .setErrorCode(id.error().code()).setProducerId(id.producerId()).setProducerEpoch(id.epoch()));
    }

    CompletableFuture<ApiMessage> addPartitionsToTxn(final KafkaRequest request) {
        final AddPartitionsToTxnRequestData data = ((AddPartitionsToTxnRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Map<String, Errors> topicErrors = new HashMap<>();
        boolean refused = false;
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic t : data.v3AndBelowTopics()) {
            final Errors e = topicError(scope, t.name(), t.partitions());
            topicErrors.put(t.name(), e);
            refused |= e != Errors.NONE;
        }
        final List<TransactionCoordinator.Partition> partitions = new ArrayList<>();
        data.v3AndBelowTopics().forEach(t -> t.partitions().forEach(p ->
                partitions.add(new TransactionCoordinator.Partition(scope.topic(t.name()), p))));
        final CompletableFuture<Errors> added = refused
                ? CompletableFuture.completedFuture(Errors.OPERATION_NOT_ATTEMPTED)
                : transactions.addPartitions(scope.group(data.v3AndBelowTransactionalId()),
                data.v3AndBelowProducerId(), data.v3AndBelowProducerEpoch(), partitions);
        return added.thenApply(txn -> addPartitionsResponse(data, topicErrors, txn));
    }

    private static ApiMessage addPartitionsResponse(final AddPartitionsToTxnRequestData data,
                                                    final Map<String, Errors> topicErrors, final Errors txn) {
        final AddPartitionsToTxnTopicResultCollection results = new AddPartitionsToTxnTopicResultCollection();
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic t : data.v3AndBelowTopics()) {
            final AddPartitionsToTxnPartitionResultCollection parts = new AddPartitionsToTxnPartitionResultCollection();
            final Errors own = topicErrors.get(t.name());
            for (int p : t.partitions()) {
                parts.add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(p)
                        .setPartitionErrorCode((own != Errors.NONE ? own : txn).code()));
            }
            results.add(new AddPartitionsToTxnTopicResult().setName(t.name()).setResultsByPartition(parts));
        }
        return new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(results);
    }

    /** Why a topic's partitions cannot join a transaction, or NONE. */
    private Errors topicError(final ClientScope scope, final String name, final List<Integer> partitions) {
        if (name == null || !KafkaTopics.isLegal(name)) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        final String core = scope.topic(name);
        if (!scope.mayPublish(core)) {
            return Errors.TOPIC_AUTHORIZATION_FAILED;
        }
        final Optional<TopicConfig> topic = topics.get(core);
        if (topic.isEmpty() || partitions.stream().anyMatch(p -> p < 0 || p >= topic.get().queueCount())) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return Errors.NONE;
    }

    CompletableFuture<ApiMessage> addOffsetsToTxn(final KafkaRequest request) {
        final AddOffsetsToTxnRequestData data = ((AddOffsetsToTxnRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Errors e = GroupApis.groupError(scope, data.groupId());
        final CompletableFuture<Errors> added = e != Errors.NONE ? CompletableFuture.completedFuture(e)
                : transactions.addOffsets(scope.group(data.transactionalId()), data.producerId(),
                data.producerEpoch());
        return added.thenApply(x -> new AddOffsetsToTxnResponseData().setErrorCode(x.code()));
    }

    CompletableFuture<ApiMessage> txnOffsetCommit(final KafkaRequest request) {
        final TxnOffsetCommitRequestData data = ((TxnOffsetCommitRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        Errors e = GroupApis.groupError(scope, data.groupId());
        final String coreGroup = e == Errors.NONE ? scope.group(data.groupId()) : null;
        if (e == Errors.NONE && data.generationIdOrMemberEpoch() >= 0) {
            final ConsumerGroup group = groups.existing(coreGroup);
            e = group == null ? Errors.ILLEGAL_GENERATION
                    : group.checkCommit(data.memberId(), data.generationIdOrMemberEpoch());
        }
        final Map<TransactionCoordinator.Partition, Long> offsets = new HashMap<>();
        final Map<String, Errors> topicErrors = new HashMap<>();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : data.topics()) {
            Errors te = e;
            if (te == Errors.NONE) {
                te = !KafkaTopics.isLegal(t.name()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                        : scope.maySubscribe(scope.topic(t.name())) ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
            }
            topicErrors.put(t.name(), te);
            if (te == Errors.NONE) {
                t.partitions().forEach(p -> offsets.put(new TransactionCoordinator.Partition(scope.topic(t.name()),
                        p.partitionIndex()), p.committedOffset()));
            }
        }
        final boolean anyTopicRefused = topicErrors.values().stream().anyMatch(x -> x != Errors.NONE);
        final CompletableFuture<Errors> held = e != Errors.NONE || anyTopicRefused
                ? CompletableFuture.completedFuture(Errors.NONE)
                : transactions.holdOffsets(scope.group(data.transactionalId()), data.producerId(),
                data.producerEpoch(), coreGroup, offsets);
        return held.thenApply(h -> txnOffsetCommitResponse(data, topicErrors, h));
    }

    private static ApiMessage txnOffsetCommitResponse(final TxnOffsetCommitRequestData data,
                                                      final Map<String, Errors> topicErrors, final Errors held) {
        final TxnOffsetCommitResponseData r = new TxnOffsetCommitResponseData();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : data.topics()) {
            final Errors te = topicErrors.get(t.name()) != Errors.NONE ? topicErrors.get(t.name()) : held;
            r.topics().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(t.name())
                    .setPartitions(t.partitions().stream().map(p -> new TxnOffsetCommitResponseData
                            .TxnOffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                            .setErrorCode(te.code())).toList()));
        }
        return r;
    }

    CompletableFuture<ApiMessage> endTxn(final KafkaRequest request) {
        final EndTxnRequestData data = ((EndTxnRequest) request.body()).data();
        return transactions.end(request.connection().scope().group(data.transactionalId()), data.producerId(),
                data.producerEpoch(), data.committed()).thenApply(e -> new EndTxnResponseData()
                .setErrorCode(e.code()).setProducerId(-1).setProducerEpoch((short) -1));
    }

    private static CompletableFuture<ApiMessage> done(final ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
