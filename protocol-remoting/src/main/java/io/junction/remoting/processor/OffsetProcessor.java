package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;

/** Consumer offsets and queue bounds: codes 14, 15, 29, 30, 31, 32. */
public final class OffsetProcessor implements RequestProcessor {
    private final Messaging messaging;

    public OffsetProcessor(final Messaging messaging) {
        this.messaging = messaging;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        switch (request.code()) {
            case RequestCode.QUERY_CONSUMER_OFFSET -> {
                final String group = request.requireField("consumerGroup");
                final String topic = request.requireField("topic");
                final int queueId = request.requireInt("queueId");
                final long offset = messaging.queryOffset(group, topic, queueId);
                if (offset >= 0) {
                    return Responses.done(Responses.success(request).put("offset", offset));
                }
                // Never consumed: an empty queue starts at 0 (nothing sent before the consumer can be lost); otherwise
                // the client applies its consume-from-where.
                if (request.boolField("setZeroIfNotFound", true) && messaging.maxOffset(topic, queueId) <= 0) {
                    return Responses.done(Responses.success(request).put("offset", 0L));
                }
                return Responses.done(Responses.error(request, ResponseCode.QUERY_NOT_FOUND,
                        "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"));
            }
            case RequestCode.UPDATE_CONSUMER_OFFSET -> {
                messaging.commitOffset(request.requireField("consumerGroup"), request.requireField("topic"),
                        request.requireInt("queueId"), request.requireLong("commitOffset"));
                return Responses.done(Responses.success(request));
            }
            case RequestCode.GET_MAX_OFFSET -> {
                return Responses.done(Responses.success(request).put("offset",
                        messaging.maxOffset(request.requireField("topic"), request.requireInt("queueId"))));
            }
            case RequestCode.GET_MIN_OFFSET -> {
                return Responses.done(Responses.success(request).put("offset",
                        messaging.minOffset(request.requireField("topic"), request.requireInt("queueId"))));
            }
            case RequestCode.SEARCH_OFFSET_BY_TIMESTAMP -> {
                return messaging.searchOffset(request.requireField("topic"), request.requireInt("queueId"),
                        request.requireLong("timestamp")).thenApply(o -> Responses.success(request).put("offset", o));
            }
            case RequestCode.GET_EARLIEST_MSG_STORETIME -> {
                return messaging.earliestStoreTime(request.requireField("topic"), request.requireInt("queueId"))
                        .thenApply(t -> Responses.success(request).put("timestamp", t));
            }
            default -> {
                return Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                        " request type " + request.code() + " not supported"));
            }
        }
    }
}
