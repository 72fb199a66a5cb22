package io.junction.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Status;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.filter.InvalidFilterException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The proto's status codes: building them, and mapping core failures onto them. */
final class Statuses {
    static final Status OK = Status.newBuilder().setCode(Code.OK).setMessage("OK").build();

    private Statuses() {
    }

    static Status of(final Code code, final String message) {
        return Status.newBuilder().setCode(code).setMessage(message == null ? code.name() : message).build();
    }

    /** A refusal found while checking a request: the code and its message. */
    static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Code code;

        Refusal(final Code code, final String message) {
            super(message, null, false, false);
            this.code = code;
        }

        Status status() {
            return of(code, getMessage());
        }
    }

    static Refusal refuse(final Code code, final String message) {
        return new Refusal(code, message);
    }

    /**
     * The status for a failed operation. {@code notFound} is what a missing resource means for the call (TOPIC_NOT_FOUND
     * for sends and routes, CONSUMER_GROUP_NOT_FOUND for group calls).
     */
    static Status fromFailure(final Throwable failure, final Code illegalArgument) {
        final Throwable t = unwrap(failure);
        if (t instanceof Refusal r) {
            return r.status();
        }
        if (t instanceof InvalidFilterException) {
            return of(Code.ILLEGAL_FILTER_EXPRESSION, t.getMessage());
        }
        final StoreError error = StoreException.errorOf(t);
        if (error == null) {
            return of(Code.INTERNAL_SERVER_ERROR, t.getClass().getSimpleName() + ": " + t.getMessage());
        }
        final Code code = switch (error) {
            case TOPIC_NOT_FOUND -> Code.TOPIC_NOT_FOUND;
            case GROUP_NOT_FOUND -> Code.CONSUMER_GROUP_NOT_FOUND;
            case QUEUE_NOT_FOUND -> Code.BAD_REQUEST;
            case PERMISSION_DENIED -> Code.FORBIDDEN;
            case MESSAGE_TOO_LARGE -> Code.MESSAGE_BODY_TOO_LARGE;
            case ILLEGAL_MESSAGE -> Code.ILLEGAL_MESSAGE_PROPERTY_KEY;
            case ILLEGAL_ARGUMENT -> illegalArgument;
            case ILLEGAL_FILTER -> Code.ILLEGAL_FILTER_EXPRESSION;
            case DISK_FULL, IO_ERROR -> Code.INTERNAL_SERVER_ERROR;
            case UNAVAILABLE, QUEUE_SEALED -> Code.INTERNAL_SERVER_ERROR;
            case BUSY -> Code.TOO_MANY_REQUESTS;
        };
        return of(code, t.getMessage());
    }

    static Throwable unwrap(final Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
