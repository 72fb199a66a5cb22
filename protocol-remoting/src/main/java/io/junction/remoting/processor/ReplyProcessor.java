package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.remoting.ClientChannels;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.reply.PendingRequests;
import io.junction.remoting.reply.ReplyProtocol;
import io.junction.remoting.reply.ReplyPush;
import io.junction.spi.ReplyAddress;
import io.netty.channel.Channel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * SEND_REPLY_MESSAGE and SEND_REPLY_MESSAGE_V2: a responder's reply ({@code MessageUtil.createReplyMessage}).
 *
 * <p>To a RocketMQ requester, as RocketMQ 5.3 brokers do: the reply is pushed to the requester's connection (the one
 * its request came over, else its producer heartbeat's) and stored in the reply topic; the responder's send succeeds
 * only when the requester's client took the reply, and fails with SYSTEM_ERROR ("channel of ... not found") when the
 * requester is gone. To a requester of another protocol ({@code REPLY_TO_CLIENT} carrying the request's reply-to
 * address, see {@link io.junction.remoting.reply.ForeignRequests}): the reply is stored at that address, where the
 * requester reads it, without RocketMQ's reply bookkeeping properties.
 */
public final class ReplyProcessor implements RequestProcessor {
    private final Messaging messaging;
    private final PendingRequests pending;
    private final ClientChannels channels;
    private final ReplyPush push;

    public ReplyProcessor(final Messaging messaging, final PendingRequests pending, final ClientChannels channels,
                          final ReplyPush push) {
        this.messaging = messaging;
        this.pending = pending;
        this.channels = channels;
        this.push = push;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        final SendProcessor.SendHeader h = SendProcessor.SendHeader.read(request,
                request.code() == RequestCode.SEND_REPLY_MESSAGE_V2);
        final Map<String, String> props = new LinkedHashMap<>(MessageProperties.decode(h.properties));
        final String target = props.get(ReplyProtocol.REPLY_TO_CLIENT);
        if (target == null) {
            return Responses.done(Responses.error(request, ResponseCode.SYSTEM_ERROR,
                    "reply message properties[" + ReplyProtocol.REPLY_TO_CLIENT + "] is null"));
        }
        final byte[] body = request.body() == null ? new byte[0] : request.body();
        if (target.startsWith(ReplyProtocol.ADDRESS_PREFIX)) {
            return forward(channel, request, h, props, body, target.substring(ReplyProtocol.ADDRESS_PREFIX.length()));
        }
        return pushAndStore(channel, request, h, props, body, target);
    }

    private CompletableFuture<RemotingCommand> pushAndStore(final Channel channel, final RemotingCommand request,
                                                            final SendProcessor.SendHeader h,
                                                            final Map<String, String> props, final byte[] body,
                                                            final String clientId) {
        final PendingRequests.Requester requester = pending.take(props.get(MessageProperties.CORRELATION_ID));
        final Channel target = requester != null && requester.clientId().equals(clientId) ? requester.channel()
                : channels.producerChannel(clientId);
        final CompletableFuture<String> pushed = target == null
                ? CompletableFuture.completedFuture("push reply message fail, channel of <" + clientId + "> not found.")
                : push.push(target, clientId, new ReplyPush.Reply(h.producerGroup == null ? "" : h.producerGroup,
                        h.topic, Math.max(h.queueId, 0), h.sysFlag, h.bornTimestamp, h.flag, props,
                        h.reconsumeTimes, ReplyPush.hostPort(SendProcessor.address(channel.remoteAddress())),
                        System.currentTimeMillis(), body));
        // Kept in the reply topic as RocketMQ brokers keep replies (storeReplyMessageEnable): findable afterwards.
        // Whether it is kept does not decide the answer: the push does.
        final CompletableFuture<SendResult> stored = messaging.send(new Message(h.topic, h.queueId, body, h.flag,
                props, h.sysFlag, h.bornTimestamp, SendProcessor.address(channel.remoteAddress()), h.reconsumeTimes))
                .exceptionally(e -> null);
        return pushed.thenCombine(stored, (failure, result) -> {
            if (failure != null) {
                return Responses.error(request, ResponseCode.SYSTEM_ERROR, failure);
            }
            return result == null ? SendProcessor.respond(request, "0", Math.max(h.queueId, 0), 0, null)
                    : SendProcessor.respond(request, result.offsetMessageId(), result.queueId(), result.queueOffset(),
                            result.uniqueId());
        });
    }

    /** Stores a reply to another protocol's request at the request's reply-to address. */
    private CompletableFuture<RemotingCommand> forward(final Channel channel, final RemotingCommand request,
                                                       final SendProcessor.SendHeader h,
                                                       final Map<String, String> props, final byte[] body,
                                                       final String address) {
        for (String internal : new String[] {ReplyProtocol.REPLY_TO_CLIENT, ReplyProtocol.TTL,
            ReplyProtocol.MSG_TYPE, ReplyProtocol.CLUSTER}) {
            props.remove(internal);
        }
        if (ReplyAddress.hasLevels(address)) {
            props.put(ReplyAddress.MQTT_TOPIC, ReplyAddress.topicName(address));
        }
        // The responder's namespace (its reply topic is wrapped in it) is the requester's.
        final String topic = ReplyProtocol.namespacePrefix(h.topic) + ReplyAddress.coreTopic(address);
        return messaging.send(new Message(topic, Message.ANY_QUEUE, body, h.flag, props, h.sysFlag, h.bornTimestamp,
                SendProcessor.address(channel.remoteAddress()), h.reconsumeTimes))
                .thenApply(r -> SendProcessor.respond(request, r.offsetMessageId(), r.queueId(), r.queueOffset(),
                        r.uniqueId()));
    }
}
