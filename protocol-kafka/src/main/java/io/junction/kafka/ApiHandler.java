package io.junction.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Answers one kind of request. Called on the connection's event loop; never blocks. The future completes with the
 * response data in the request's version, or with null when the request gets no response (Produce with acks=0);
 * failing it answers with the request's own error response.
 */
@FunctionalInterface
interface ApiHandler {
    CompletableFuture<ApiMessage> handle(KafkaRequest request);
}
