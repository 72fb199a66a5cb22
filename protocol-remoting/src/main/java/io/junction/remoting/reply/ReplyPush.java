package io.junction.remoting.reply;

import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.remoting.ClientCalls;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * PUSH_REPLY_MESSAGE_TO_CLIENT: hands a reply to its requester's connection and waits for the client's answer, as
 * RocketMQ brokers do. The header carries the reply's fields ({@code ReplyMessageRequestHeader}; every field the
 * client requires is set), the body its bytes as sent (the sys flag says whether compressed).
 */
public final class ReplyPush {
    /** How long the requester's client gets to answer a push. */
    static final long TIMEOUT_MILLIS = 3000;
    private static final String DEFAULT_TOPIC = "TBW102";
    private static final int DEFAULT_TOPIC_QUEUES = 4;

    private final ClientCalls calls;
    private final String storeHost;

    /** @param storeHost {@code host:port} the broker reports as the reply's store host */
    public ReplyPush(final ClientCalls calls, final String storeHost) {
        this.calls = calls;
        this.storeHost = storeHost;
    }

    /** A reply as pushed. */
    public record Reply(String producerGroup, String topic, int queueId, int sysFlag, long bornTimestamp, int flag,
                        Map<String, String> properties, int reconsumeTimes, String bornHost, long storeTimestamp,
                        byte[] body) {
    }

    /** A reply another protocol stored, as pushed to a RocketMQ requester. */
    Reply of(final StoredMessage m) {
        return new Reply("", m.topic(), m.queueId(), m.sysFlag(), m.bornTimestamp(), m.flag(), m.properties(),
                m.reconsumeTimes(), hostPort(m.bornHost()), m.storeTimestamp(), m.bodyBytes());
    }

    /**
     * Pushes {@code reply} to the requester's connection; the future completes with null when the client took it,
     * else with why not.
     */
    public CompletableFuture<String> push(final Channel requester, final String clientId, final Reply reply) {
        final Map<String, String> props = new LinkedHashMap<>(reply.properties());
        props.put(ReplyProtocol.PUSH_REPLY_TIME, Long.toString(System.currentTimeMillis()));
        final RemotingCommand command = RemotingCommand.request(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, 0, false)
                .put("producerGroup", reply.producerGroup())
                .put("topic", reply.topic())
                .put("defaultTopic", DEFAULT_TOPIC)
                .put("defaultTopicQueueNums", DEFAULT_TOPIC_QUEUES)
                .put("queueId", reply.queueId())
                .put("sysFlag", reply.sysFlag())
                .put("bornTimestamp", reply.bornTimestamp())
                .put("flag", reply.flag())
                .put("properties", MessageProperties.encode(props))
                .put("reconsumeTimes", reply.reconsumeTimes())
                .put("unitMode", false)
                .put("bornHost", reply.bornHost())
                .put("storeHost", storeHost)
                .put("storeTimestamp", reply.storeTimestamp())
                .body(reply.body());
        return calls.call(requester, command, TIMEOUT_MILLIS).handle((response, failure) -> {
            if (failure == null && response.code() == ResponseCode.SUCCESS) {
                return null;
            }
            return "push reply message to " + clientId + " fail: " + (failure != null ? failure.getMessage()
                    : response.code() + " " + response.remark());
        });
    }

    /** {@code ip:port}, the form the client parses; an unknown host as {@code 0.0.0.0:0}. */
    public static String hostPort(final InetSocketAddress address) {
        if (address == null || address.getAddress() == null) {
            return "0.0.0.0:0";
        }
        final String ip = address.getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + address.getPort();
    }
}
