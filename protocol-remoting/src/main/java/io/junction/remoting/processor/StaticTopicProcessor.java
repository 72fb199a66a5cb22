package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.statictopic.MappingRefused;
import io.junction.remoting.statictopic.MappingRules;
import io.junction.remoting.statictopic.StaticTopic;
import io.junction.remoting.statictopic.StaticTopics;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * UPDATE_AND_CREATE_STATIC_TOPIC (513), what {@code mqadmin updateStaticTopic} and {@code remappingStaticTopic} send
 * each broker: header as UPDATE_AND_CREATE_TOPIC's plus {@code force}, body the broker's
 * {@code TopicQueueMappingDetail}. An accepted mapping creates or enlarges the topic to its logic queue count, then
 * is kept (as RocketMQ's broker updates the topic config, then the mapping); routes and GET_TOPIC_CONFIG show it from
 * then on. A mapping this broker cannot serve as written is refused with SYSTEM_ERROR and the reason, as RocketMQ's
 * broker answers a mapping its checks throw on.
 */
public final class StaticTopicProcessor implements RequestProcessor {
    private final Messaging messaging;
    private final BrokerIdentity identity;
    private final StaticTopics statics;
    /**
     * The last 513 taken: each waits for the one before, so the check of the held mapping (epoch, scope, queue count)
     * and the write after it are not interleaved with another's, as RocketMQ's broker serializes them.
     */
    private CompletableFuture<RemotingCommand> last = CompletableFuture.completedFuture(null);

    public StaticTopicProcessor(final Messaging messaging, final BrokerIdentity identity, final StaticTopics statics) {
        this.messaging = messaging;
        this.identity = identity;
        this.statics = statics;
    }

    @Override
    public synchronized CompletableFuture<RemotingCommand> process(final Channel channel,
                                                                   final RemotingCommand request) {
        final CompletableFuture<RemotingCommand> answer = last.handle((r, e) -> null)
                .thenCompose(v -> createOrUpdate(request));
        last = answer;
        return answer;
    }

    private CompletableFuture<RemotingCommand> createOrUpdate(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        if (request.body() == null) {
            throw new HeaderException("the request has no TopicQueueMappingDetail body");
        }
        final Optional<TopicConfig> existing = messaging.route(topic);
        final StaticTopic accepted;
        try {
            accepted = MappingRules.accept(Json.parseFastjson(request.body()), topic, identity.brokerName(),
                    statics.find(topic), request.boolField("force", false),
                    existing.map(TopicConfig::queueCount).orElse(0));
        } catch (MappingRefused e) {
            return Responses.done(Responses.error(request, ResponseCode.SYSTEM_ERROR, e.getMessage()));
        }
        final int perm = request.intField("perm", TopicConfig.PERM_READ_WRITE) & TopicConfig.PERM_READ_WRITE;
        final TopicConfig config = existing
                .map(c -> new TopicConfig(topic, accepted.totalQueues(), c.type(), perm, c.attributes()))
                .orElseGet(() -> new TopicConfig(topic, accepted.totalQueues(),
                        request.boolField("order", false) ? TopicType.FIFO : TopicType.NORMAL, perm, Map.of()));
        return messaging.topics().createOrUpdate(config)
                .thenCompose(c -> statics.save(accepted))
                .thenApply(v -> Responses.success(request));
    }
}
