package io.junction.kafka;

import io.junction.core.Messaging;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeProducersRequest;

/**
 * DescribeProducers (AdminClient's describeProducers, {@code kafka-transactions.sh describe-producers}): the
 * idempotent and transactional producers that wrote to a partition, with their epoch and last sequence.
 *
 * <p>A partition's producers are those whose marked batches ({@link ProducerStates#MARK}) are among its last
 * {@value ProducerStates#RESTORE_WINDOW} messages, so they survive a restart, overlaid with what this run holds in
 * memory (fresher, and the only record of a transactional producer's sequence: its batches are appended by the commit
 * under the transaction's marker instead). The time shown is the store time of the producer's last marked batch, or
 * of its last write this run. {@code currentTxnStartOffset} is always -1: a transaction's records are held by its
 * coordinator until it commits, so an open transaction never holds a partition's readable end back (no "hanging"
 * transaction to find). Reading the producers needs the right to consume the topic, as in Kafka (READ).
 */
final class DescribeProducersApi implements ApiHandler {
    private final Messaging messaging;
    private final KafkaTopics topics;
    private final ProducerStates producers;

    DescribeProducersApi(final Messaging messaging, final KafkaTopics topics, final ProducerStates producers) {
        this.messaging = messaging;
        this.topics = topics;
        this.producers = producers;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final DescribeProducersRequestData data = ((DescribeProducersRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<TopicResponse>> answers = new ArrayList<>();
        for (DescribeProducersRequestData.TopicRequest t : data.topics()) {
            final boolean legal = t.name() != null && KafkaTopics.isLegal(t.name());
            final String topic = legal ? scope.topic(t.name()) : null;
            final boolean allowed = legal && scope.maySubscribe(topic);
            final List<CompletableFuture<PartitionResponse>> parts = new ArrayList<>();
            for (int partition : t.partitionIndexes()) {
                if (legal && !allowed) {
                    parts.add(CompletableFuture.completedFuture(refused(partition,
                            Errors.TOPIC_AUTHORIZATION_FAILED)));
                } else if (topic == null || topics.get(topic)
                        .filter(c -> partition >= 0 && partition < c.queueCount()).isEmpty()) {
                    parts.add(CompletableFuture.completedFuture(refused(partition,
                            Errors.UNKNOWN_TOPIC_OR_PARTITION)));
                } else {
                    parts.add(describe(topic, partition));
                }
            }
            answers.add(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(x ->
                    new TopicResponse().setName(t.name())
                            .setPartitions(parts.stream().map(CompletableFuture::join).toList())));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x ->
                new DescribeProducersResponseData().setTopics(answers.stream().map(CompletableFuture::join).toList()));
    }

    private CompletableFuture<PartitionResponse> describe(final String topic, final int partition) {
        final long from = Math.max(messaging.minOffset(topic, partition),
                messaging.maxOffset(topic, partition) - ProducerStates.RESTORE_WINDOW);
        final Map<Long, ProducerStates.ActiveProducer> byId = new HashMap<>();
        return PartitionScan.scan(messaging, topic, partition, from, m -> {
            final ProducerStates.MarkedBatch b = ProducerStates.parseMark(m.property(ProducerStates.MARK),
                    m.queueOffset());
            if (b != null) {
                byId.put(b.producerId(), new ProducerStates.ActiveProducer(b.producerId(), b.batch().epoch(),
                        b.batch().lastSequence(), m.storeTimestamp()));
            }
        }).thenApply(x -> {
            producers.known(topic, partition).forEach(p -> byId.put(p.producerId(), p));
            final List<ProducerState> active = byId.values().stream()
                    .sorted(Comparator.comparingLong(ProducerStates.ActiveProducer::producerId))
                    .map(p -> new ProducerState().setProducerId(p.producerId()).setProducerEpoch(p.epoch())
                            .setLastSequence(p.lastSequence()).setLastTimestamp(p.lastTimestamp())
                            .setCoordinatorEpoch(-1).setCurrentTxnStartOffset(-1))
                    .toList();
            return new PartitionResponse().setPartitionIndex(partition).setActiveProducers(active);
        }).exceptionally(e -> refused(partition, KafkaErrors.of(e)));
    }

    private static PartitionResponse refused(final int partition, final Errors error) {
        return new PartitionResponse().setPartitionIndex(partition).setErrorCode(error.code())
                .setErrorMessage(error.message());
    }
}
