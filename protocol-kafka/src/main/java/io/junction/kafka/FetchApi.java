package io.junction.kafka;

import io.junction.core.Messaging;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * Fetch: reads each partition's queue from the fetch offset (core PULL) and answers with one record batch per
 * partition built for the consumer, waiting up to {@code max.wait.ms} for {@code min.bytes} (see
 * {@link FetchOperation}). Fetch sessions are not kept: every response says session 0, so clients send full requests.
 */
final class FetchApi implements ApiHandler {
    private final Messaging messaging;
    private final KafkaTopics topics;
    private final int maxFetchBytes;

    FetchApi(final Messaging messaging, final KafkaTopics topics, final int maxFetchBytes) {
        this.messaging = messaging;
        this.topics = topics;
        this.maxFetchBytes = maxFetchBytes;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final FetchRequestData data = ((FetchRequest) request.body()).data();
        if (data.sessionId() != 0 && data.sessionEpoch() != -1) {
            return CompletableFuture.completedFuture(new FetchResponseData()
                    .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code()).setResponses(List.of()));
        }
        final ClientScope scope = request.connection().scope();
        final List<FetchOperation.Target> targets = new ArrayList<>();
        for (FetchRequestData.FetchTopic t : data.topics()) {
            final String core = t.topic() == null ? null : scope.topic(t.topic());
            for (FetchRequestData.FetchPartition p : t.partitions()) {
                Errors error = check(scope, t.topic(), p.partition());
                if (error == Errors.NONE && p.fetchOffset() < topics.logStartOffset(core, p.partition())) {
                    error = Errors.OFFSET_OUT_OF_RANGE; // before what DeleteRecords left
                }
                targets.add(new FetchOperation.Target(t.topic(), core, p.partition(), p.fetchOffset(),
                        Math.max(0, p.partitionMaxBytes()), error));
            }
        }
        final int maxBytes = Math.max(1, Math.min(data.maxBytes() <= 0 ? Integer.MAX_VALUE : data.maxBytes(),
                maxFetchBytes));
        final FetchOperation op = new FetchOperation(messaging, topics, request.connection().executor(),
                request.connection().alloc(), targets,
                Math.max(0, data.maxWaitMs()), Math.max(0, data.minBytes()), maxBytes,
                data.isolationLevel() == 1);
        return op.start();
    }

    private Errors check(final ClientScope scope, final String topic, final int partition) {
        if (topic == null || !KafkaTopics.isLegal(topic)) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!scope.maySubscribe(scope.topic(topic))) {
            return Errors.TOPIC_AUTHORIZATION_FAILED;
        }
        return topics.get(scope.topic(topic)).filter(t -> partition >= 0 && partition < t.queueCount()).isPresent()
                ? Errors.NONE : Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
}
