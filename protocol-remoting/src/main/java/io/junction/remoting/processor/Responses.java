package io.junction.remoting.processor;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.ResponseCode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Building responses, and mapping core errors onto Remoting response codes. */
public final class Responses {
    private Responses() {
    }

    public static RemotingCommand success(final RemotingCommand request) {
        return RemotingCommand.responseTo(request, ResponseCode.SUCCESS, null);
    }

    public static RemotingCommand error(final RemotingCommand request, final int code, final String remark) {
        return RemotingCommand.responseTo(request, code, remark);
    }

    public static CompletableFuture<RemotingCommand> done(final RemotingCommand response) {
        return CompletableFuture.completedFuture(response);
    }

    /**
     * {@code answer}, made from {@code source}, with its cancellation passed on to {@code source}: a long poll given
     * up by its connection frees the store's parked read.
     */
    public static <T> CompletableFuture<RemotingCommand> cancellingSource(final CompletableFuture<T> source,
                                                                          final CompletableFuture<RemotingCommand> answer) {
        answer.whenComplete((r, e) -> {
            if (answer.isCancelled()) {
                source.cancel(false);
            }
        });
        return answer;
    }

    /** The response for a failure of processing {@code request}. */
    public static RemotingCommand failure(final RemotingCommand request, final Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof HeaderException) {
            return error(request, ResponseCode.SYSTEM_ERROR, t.getMessage());
        }
        if (t instanceof StoreException se) {
            return error(request, code(se.error()), se.getMessage());
        }
        if (t instanceof IllegalArgumentException) {
            return error(request, ResponseCode.INVALID_PARAMETER, t.getMessage());
        }
        return error(request, ResponseCode.SYSTEM_ERROR, String.valueOf(t));
    }

    /** The Remoting code for a core error. */
    public static int code(final StoreError error) {
        return switch (error) {
            case TOPIC_NOT_FOUND -> ResponseCode.TOPIC_NOT_EXIST;
            case GROUP_NOT_FOUND -> ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST;
            case PERMISSION_DENIED -> ResponseCode.NO_PERMISSION;
            case MESSAGE_TOO_LARGE, ILLEGAL_MESSAGE, ILLEGAL_ARGUMENT -> ResponseCode.MESSAGE_ILLEGAL;
            case ILLEGAL_FILTER -> ResponseCode.SUBSCRIPTION_PARSE_FAILED;
            case DISK_FULL, UNAVAILABLE, QUEUE_SEALED -> ResponseCode.SERVICE_NOT_AVAILABLE;
            case BUSY -> ResponseCode.SYSTEM_BUSY;
            case QUEUE_NOT_FOUND, IO_ERROR -> ResponseCode.SYSTEM_ERROR;
        };
    }
}
