package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.remoting.ClientChannels;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;

/** Consumer offsets and queue bounds: codes 14, 15, 29, 30, 31, 32. */
public final class OffsetProcessor implements RequestProcessor {
    private final Messaging messaging;
    private final ClientChannels channels;

    public OffsetProcessor(final Messaging messaging, final ClientChannels channels) {
        this.messaging = messaging;
        this.channels = channels;
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
                if (startsAtZero(channel, request, group, topic, queueId)) {
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

    /**
     * Where a group that never committed an offset on a queue starts, as RocketMQ's broker answers: at 0 while the
     * queue still holds its first message (offset 0 not removed by retention; an empty new queue too), whatever the
     * client's consume-from-where, so a recently created group reads what was sent before it first asked. Otherwise
     * the answer is "not found" and the client applies its consume-from-where: the queue's end for
     * {@code CONSUME_FROM_LAST_OFFSET}, its first retained message for {@code CONSUME_FROM_FIRST_OFFSET}. Two cases
     * get "not found" always: a request with {@code setZeroIfNotFound=false}, and (unlike RocketMQ, which starts such
     * a group at 0 too) a client whose heartbeat asked for {@code CONSUME_FROM_TIMESTAMP}, so its timestamp counts.
     * Broadcast clients keep their offsets locally and never ask.
     */
    private boolean startsAtZero(final Channel channel, final RemotingCommand request, final String group,
                                 final String topic, final int queueId) {
        return request.boolField("setZeroIfNotFound", true) && !channels.startsFromTimestamp(channel, group)
                && messaging.minOffset(topic, queueId) == 0;
    }
}
