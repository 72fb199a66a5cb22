package io.junction.remoting.processor;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.group.ConsumerClient;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.ClientChannels;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.statictopic.StaticTopic;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Client management: HEART_BEAT, UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP, CHECK_CLIENT_CONFIG,
 * LOCK_BATCH_MQ and UNLOCK_BATCH_MQ.
 */
public final class ClientProcessor implements RequestProcessor {
    private final Messaging messaging;
    private final ClientChannels channels;
    private final SystemTopics systemTopics;
    private final FilterCache filters;
    private final BrokerIdentity identity;

    public ClientProcessor(final Messaging messaging, final ClientChannels channels, final SystemTopics systemTopics,
                           final FilterCache filters, final BrokerIdentity identity) {
        this.messaging = messaging;
        this.channels = channels;
        this.systemTopics = systemTopics;
        this.filters = filters;
        this.identity = identity;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        return switch (request.code()) {
            case RequestCode.HEART_BEAT -> heartbeat(channel, request);
            case RequestCode.UNREGISTER_CLIENT -> Responses.done(unregister(channel, request));
            case RequestCode.GET_CONSUMER_LIST_BY_GROUP -> Responses.done(consumerList(request));
            case RequestCode.CHECK_CLIENT_CONFIG -> Responses.done(checkClientConfig(request));
            case RequestCode.LOCK_BATCH_MQ -> Responses.done(lock(request, true));
            case RequestCode.UNLOCK_BATCH_MQ -> Responses.done(lock(request, false));
            default -> Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
        };
    }

    private static JsonNode body(final RemotingCommand request) {
        if (request.body() == null || request.body().length == 0) {
            throw new HeaderException("the request has no body");
        }
        return Json.parse(request.body());
    }

    private CompletableFuture<RemotingCommand> heartbeat(final Channel channel, final RemotingCommand request) {
        final JsonNode data = body(request);
        final String clientId = Json.text(data, "clientID");
        if (clientId == null || clientId.isEmpty()) {
            throw new HeaderException("the heartbeat has no clientID");
        }
        final List<CompletableFuture<?>> pending = new ArrayList<>();
        channels.heartbeatFrom(channel, clientId, request.language(), request.version());
        for (JsonNode producer : iterable(data.get("producerDataSet"))) {
            final String group = Json.text(producer, "groupName");
            if (group != null) {
                channels.register(channel, false, group, clientId);
            }
        }
        for (JsonNode consumer : iterable(data.get("consumerDataSet"))) {
            final String group = Json.text(consumer, "groupName");
            if (group == null || group.isEmpty()) {
                continue;
            }
            final boolean broadcast = "BROADCASTING".equals(Json.text(consumer, "messageModel"));
            final Map<String, ConsumerClient.Subscription> subscriptions = new HashMap<>();
            for (JsonNode sub : iterable(consumer.get("subscriptionDataSet"))) {
                final String topic = Json.text(sub, "topic");
                if (topic != null) {
                    final String type = Json.text(sub, "expressionType");
                    subscriptions.put(topic, new ConsumerClient.Subscription(type == null ? "TAG" : type,
                            Json.text(sub, "subString")));
                }
            }
            channels.register(channel, true, group, clientId);
            channels.startFromTimestamp(channel, group,
                    "CONSUME_FROM_TIMESTAMP".equals(Json.text(consumer, "consumeFromWhere")));
            if (!broadcast) {
                pending.add(systemTopics.ensure(SystemNames.retryTopic(group)));
            }
            messaging.consumers().heartbeat(group, clientId, subscriptions, broadcast);
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(v -> Responses.success(request).put("IS_SUB_CHANGE", "false"));
    }

    private static Iterable<JsonNode> iterable(final JsonNode node) {
        return node == null || !node.isArray() ? List.of() : node;
    }

    private RemotingCommand unregister(final Channel channel, final RemotingCommand request) {
        final String clientId = request.requireField("clientID");
        final String producerGroup = request.field("producerGroup");
        final String consumerGroup = request.field("consumerGroup");
        if (producerGroup != null) {
            channels.unregister(channel, false, producerGroup, clientId);
        }
        if (consumerGroup != null) {
            channels.unregister(channel, true, consumerGroup, clientId);
            messaging.consumers().unregister(consumerGroup, clientId);
        }
        return Responses.success(request);
    }

    private RemotingCommand consumerList(final RemotingCommand request) {
        final String group = request.requireField("consumerGroup");
        final List<String> ids = messaging.consumers().clients(group).stream().map(ConsumerClient::clientId).toList();
        if (ids.isEmpty()) {
            return Responses.error(request, ResponseCode.SYSTEM_ERROR, "no consumer for this group, " + group);
        }
        return Responses.success(request).body(Json.bytes(Json.write(Map.of("consumerIdList", ids))));
    }

    private RemotingCommand checkClientConfig(final RemotingCommand request) {
        final JsonNode body = body(request);
        final JsonNode sub = body.get("subscriptionData");
        if (sub == null || sub.isNull()) {
            return Responses.success(request);
        }
        try {
            filters.get(Json.text(sub, "expressionType"), Json.text(sub, "subString"));
            return Responses.success(request);
        } catch (InvalidFilterException e) {
            return Responses.error(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, e.getMessage());
        }
    }

    private RemotingCommand lock(final RemotingCommand request, final boolean lock) {
        final JsonNode body = body(request);
        final String group = Json.text(body, "consumerGroup");
        final String clientId = Json.text(body, "clientId");
        if (group == null || clientId == null) {
            throw new HeaderException("the lock request lacks consumerGroup or clientId");
        }
        final Map<String, Set<Integer>> byTopic = new LinkedHashMap<>();
        // The broker name each topic's queues were asked under: this broker's, or for a static topic the mock one
        // its logic queues carry; the answer names them the same way, or the client would not find them locked.
        final Map<String, String> askedAs = new HashMap<>();
        for (JsonNode mq : iterable(body.get("mqSet"))) {
            final String topic = Json.text(mq, "topic");
            final JsonNode q = mq.get("queueId");
            if (topic != null && q != null && q.canConvertToInt()) {
                byTopic.computeIfAbsent(topic, t -> new TreeSet<>()).add(q.asInt());
                final String brokerName = Json.text(mq, "brokerName");
                if (brokerName != null && brokerName.startsWith(StaticTopic.MOCK_BROKER_PREFIX)) {
                    askedAs.put(topic, brokerName);
                }
            }
        }
        if (!lock) {
            byTopic.forEach((topic, queues) -> messaging.consumers().unlockQueues(group, clientId, topic, queues));
            return Responses.success(request);
        }
        final List<Map<String, Object>> locked = new ArrayList<>();
        byTopic.forEach((topic, queues) -> {
            for (int q : messaging.consumers().lockQueues(group, clientId, topic, queues)) {
                final Map<String, Object> mq = new LinkedHashMap<>();
                mq.put("brokerName", askedAs.getOrDefault(topic, identity.brokerName()));
                mq.put("queueId", q);
                mq.put("topic", topic);
                locked.add(mq);
            }
        });
        return Responses.success(request).body(Json.bytes(Json.write(Map.of("lockOKMQSet", locked))));
    }
}
