package io.junction.remoting.reply;

import io.junction.core.message.MessageProperties;
import io.junction.spi.CoreNames;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A RocketMQ request ({@code DefaultMQProducer.request}: {@code CORRELATION_ID} and {@code REPLY_TO_CLIENT} set) as
 * it is sent: it gets {@code CLUSTER} (RocketMQ brokers put it on the messages they store; Junction on requests,
 * where responders need it) and the canonical reply-to address, its cluster's reply topic, so responders of every
 * protocol can answer; its requester is remembered with its connection.
 */
public final class RocketMqRequests {
    private final String clusterName;
    private final PendingRequests pending;
    private final ReplyRelay relay;

    public RocketMqRequests(final String clusterName, final PendingRequests pending, final ReplyRelay relay) {
        this.clusterName = clusterName;
        this.pending = pending;
        this.relay = relay;
    }

    /**
     * Prepares the properties of a message sent to {@code topic} over {@code channel} when it is a request; the
     * future completes once replies to it will be seen, when the message may be stored.
     */
    public CompletableFuture<?> prepare(final Channel channel, final String topic, final Map<String, String> props) {
        final String correlationId = props.get(MessageProperties.CORRELATION_ID);
        final String clientId = props.get(ReplyProtocol.REPLY_TO_CLIENT);
        if (correlationId == null || clientId == null || clientId.startsWith(ReplyProtocol.ADDRESS_PREFIX)
                || ReplyProtocol.REPLY.equals(props.get(ReplyProtocol.MSG_TYPE))) {
            return CompletableFuture.completedFuture(null);
        }
        final String replyTopic = ReplyProtocol.replyTopic(clusterName);
        props.put(ReplyProtocol.CLUSTER, clusterName);
        props.put(MessageProperties.REPLY_TO, CoreNames.escape(replyTopic));
        pending.add(correlationId, clientId, channel, props.get(ReplyProtocol.TTL));
        return relay.watch(ReplyProtocol.namespacePrefix(topic) + replyTopic);
    }
}
