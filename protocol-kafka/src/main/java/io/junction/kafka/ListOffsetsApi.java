package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.message.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * ListOffsets: earliest is the partition's log start offset ({@link KafkaTopics#logStartOffset}), latest its end; the
 * latest timestamp is the last record; a timestamp finds the first record stored at or after it (the core searches by
 * store time, which for records produced in order is their timestamp) and answers with that record's offset and
 * timestamp, or -1 when there is none.
 */
final class ListOffsetsApi implements ApiHandler {
    private final Messaging messaging;
    private final KafkaTopics topics;

    ListOffsetsApi(final Messaging messaging, final KafkaTopics topics) {
        this.messaging = messaging;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final ListOffsetsRequest body = (ListOffsetsRequest) request.body();
        final ClientScope scope = request.connection().scope();
        final List<CompletableFuture<ListOffsetsTopicResponse>> answers = new ArrayList<>();
        for (ListOffsetsTopic t : body.data().topics()) {
            final List<CompletableFuture<ListOffsetsPartitionResponse>> parts = new ArrayList<>();
            final boolean legal = t.name() != null && KafkaTopics.isLegal(t.name());
            final boolean allowed = legal && scope.maySubscribe(scope.topic(t.name()));
            for (ListOffsetsPartition p : t.partitions()) {
                if (legal && !allowed) {
                    parts.add(CompletableFuture.completedFuture(new ListOffsetsPartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setLeaderEpoch(-1).setOffset(-1).setTimestamp(-1)
                            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                } else {
                    parts.add(offset(legal ? scope.topic(t.name()) : null, p.partitionIndex(), p.timestamp()));
                }
            }
            answers.add(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(x ->
                    new ListOffsetsTopicResponse().setName(t.name())
                            .setPartitions(parts.stream().map(CompletableFuture::join).toList())));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(x ->
                new ListOffsetsResponseData().setTopics(answers.stream().map(CompletableFuture::join).toList()));
    }

    /** The offset asked of a partition of {@code topic}, a core topic (null: not a legal name). */
    private CompletableFuture<ListOffsetsPartitionResponse> offset(final String topic, final int partition,
                                                                   final long timestamp) {
        final ListOffsetsPartitionResponse r = new ListOffsetsPartitionResponse().setPartitionIndex(partition)
                .setLeaderEpoch(-1);
        if (topic == null || topics.get(topic).filter(t -> partition >= 0 && partition < t.queueCount()).isEmpty()) {
            return CompletableFuture.completedFuture(r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setOffset(-1).setTimestamp(-1));
        }
        if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
            return CompletableFuture.completedFuture(r.setOffset(messaging.maxOffset(topic, partition))
                    .setTimestamp(-1));
        }
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP
                || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP
                || timestamp == ListOffsetsRequest.EARLIEST_PENDING_UPLOAD_TIMESTAMP
                || timestamp == ListOffsetsRequest.LATEST_TIERED_TIMESTAMP) {
            return CompletableFuture.completedFuture(r.setOffset(topics.logStartOffset(topic, partition))
                    .setTimestamp(-1));
        }
        if (timestamp == ListOffsetsRequest.MAX_TIMESTAMP) {
            final long last = messaging.maxOffset(topic, partition) - 1;
            if (last < topics.logStartOffset(topic, partition)) {
                return CompletableFuture.completedFuture(r.setOffset(-1).setTimestamp(-1));
            }
            return recordAt(topic, partition, last, r);
        }
        if (timestamp < 0) {
            return CompletableFuture.completedFuture(r.setErrorCode(Errors.INVALID_REQUEST.code()).setOffset(-1)
                    .setTimestamp(-1));
        }
        return messaging.searchOffset(topic, partition, timestamp)
                .thenApply(offset -> Math.max(offset, topics.logStartOffset(topic, partition)))
                .thenCompose(offset -> offset >= messaging.maxOffset(topic, partition)
                        ? CompletableFuture.completedFuture(r.setOffset(-1).setTimestamp(-1))
                        : recordAt(topic, partition, offset, r))
                .exceptionally(e -> r.setErrorCode(KafkaErrors.of(e).code()).setOffset(-1).setTimestamp(-1));
    }

    /** Answers with the offset and timestamp of the first record at or after {@code offset}. */
    private CompletableFuture<ListOffsetsPartitionResponse> recordAt(final String topic, final int partition,
                                                                     final long offset,
                                                                     final ListOffsetsPartitionResponse r) {
        return messaging.pull(new PullRequest("kafka", topic, partition, offset, 1, null, 0)).thenApply(read -> {
            if (read.messages().isEmpty()) {
                return r.setOffset(-1).setTimestamp(-1);
            }
            final StoredMessage m = read.messages().get(0);
            return r.setOffset(m.queueOffset()).setTimestamp(m.bornTimestamp());
        });
    }
}
