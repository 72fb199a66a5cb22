package io.junction.kafka;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.protocol.Errors;

/** The Kafka error code a core failure is answered with. */
final class KafkaErrors {
    private KafkaErrors() {
    }

    /** The code for a failed core call; unexpected failures are UNKNOWN_SERVER_ERROR. */
    static Errors of(final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof StoreException se) {
            return of(se.error());
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    static Errors of(final StoreError error) {
        return switch (error) {
            case TOPIC_NOT_FOUND, QUEUE_NOT_FOUND -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
            case GROUP_NOT_FOUND -> Errors.GROUP_ID_NOT_FOUND;
            case PERMISSION_DENIED -> Errors.TOPIC_AUTHORIZATION_FAILED;
            case MESSAGE_TOO_LARGE -> Errors.MESSAGE_TOO_LARGE;
            case ILLEGAL_MESSAGE, ILLEGAL_FILTER -> Errors.INVALID_RECORD;
            case ILLEGAL_ARGUMENT -> Errors.INVALID_REQUEST;
            // Retriable for the client: it backs off and sends again.
            case DISK_FULL, IO_ERROR -> Errors.KAFKA_STORAGE_ERROR;
            case UNAVAILABLE, QUEUE_SEALED -> Errors.NOT_LEADER_OR_FOLLOWER;
            case BUSY -> Errors.REQUEST_TIMED_OUT;
        };
    }
}
