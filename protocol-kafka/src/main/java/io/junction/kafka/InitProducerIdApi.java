package io.junction.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdRequest;

/**
 * InitProducerId for idempotent producers: a new producer id at epoch 0. Transactional producers (with a
 * transactional id) are refused: transactions are not served yet.
 */
final class InitProducerIdApi implements ApiHandler {
    private final ProducerStates producers;

    InitProducerIdApi(final ProducerStates producers) {
        this.producers = producers;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final InitProducerIdRequest body = (InitProducerIdRequest) request.body();
        if (body.data().transactionalId() != null) {
            return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                    .setErrorCode(Errors.INVALID_REQUEST.code()).setProducerId(-1)
                    .setProducerEpoch((short) -1));
        }
        return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                .setProducerId(producers.newProducerId()).setProducerEpoch((short) 0));
    }
}
