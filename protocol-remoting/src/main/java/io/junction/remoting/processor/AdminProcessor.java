package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.group.ConsumerClient;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.ClientChannels;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.statictopic.StaticTopics;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code DefaultMQAdminExt} and {@code mqadmin} ask a broker: topic create/update/delete, topic and consume
 * stats, consumer connections, broker runtime info, message query and view, subscription groups, offset reset.
 */
public final class AdminProcessor implements RequestProcessor {
    public static final int INVOKE_BROKER_TO_RESET_OFFSET = 222;
    public static final int RESET_CONSUMER_CLIENT_OFFSET = 220;
    public static final int GET_TOPIC_CONFIG = 351;
    private static final String MESSAGE_TYPE = "message.type";

    private final Messaging messaging;
    private final BrokerIdentity identity;
    private final ClientChannels channels;
    private final AtomicInteger opaques;
    private final ConsumeStatsQuery consumeStats;
    private final StaticTopics statics;

    public AdminProcessor(final Messaging messaging, final BrokerIdentity identity, final ClientChannels channels,
                          final AtomicInteger opaques, final StaticTopics statics) {
        this.messaging = messaging;
        this.statics = statics;
        this.identity = identity;
        this.channels = channels;
        this.opaques = opaques;
        this.consumeStats = new ConsumeStatsQuery(messaging, identity);
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        return switch (request.code()) {
            case RequestCode.UPDATE_AND_CREATE_TOPIC -> createTopic(request);
            case RequestCode.DELETE_TOPIC_IN_BROKER -> deleteTopic(request);
            case RequestCode.DELETE_TOPIC_IN_NAMESRV -> Responses.done(Responses.success(request));
            case RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP -> createGroup(request);
            case RequestCode.GET_TOPIC_STATS_INFO -> Responses.done(topicStats(request));
            case RequestCode.GET_CONSUME_STATS -> consumeStats.answer(request);
            case RequestCode.GET_CONSUMER_CONNECTION_LIST -> Responses.done(connections(request));
            case RequestCode.GET_BROKER_RUNTIME_INFO -> messaging.statistics().runtime().thenApply(f -> Responses
                    .success(request).body(Json.bytes(Json.write(Map.of("table",
                            RuntimeInfo.table(f, System.currentTimeMillis()))))));
            case RequestCode.QUERY_MESSAGE -> queryMessage(request);
            case RequestCode.VIEW_MESSAGE_BY_ID -> messaging.lookup(request.requireLong("offset"))
                    .thenApply(m -> m.isEmpty()
                            ? Responses.error(request, ResponseCode.SYSTEM_ERROR,
                                    "can not find message by the offset, " + request.field("offset"))
                            : Responses.success(request).payload(records(List.of(m.get()))));
            case INVOKE_BROKER_TO_RESET_OFFSET -> resetOffset(request);
            case GET_TOPIC_CONFIG -> Responses.done(topicConfig(request));
            default -> Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
        };
    }

    private CompletableFuture<RemotingCommand> createTopic(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        final int queues = Math.max(request.intField("readQueueNums", 8), request.intField("writeQueueNums", 8));
        final int perm = request.intField("perm", TopicConfig.PERM_READ_WRITE) & TopicConfig.PERM_READ_WRITE;
        final Map<String, String> attributes = parseAttributes(request.field("attributes"));
        final TopicType type = typeOf(attributes.get(MESSAGE_TYPE), request.boolField("order", false));
        final TopicConfig config = new TopicConfig(topic, queues, type, perm, attributes);
        return messaging.topics().createOrUpdate(config).thenApply(c -> Responses.success(request));
    }

    private CompletableFuture<RemotingCommand> deleteTopic(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        // The core deletes the topic's static mapping with it, whatever path deletes it.
        return messaging.topics().delete(topic).thenApply(d -> Responses.success(request));
    }

    /** RocketMQ 5 attribute string: comma-separated {@code +key=value} (set) or {@code -key} (remove). */
    static Map<String, String> parseAttributes(final String text) {
        final Map<String, String> out = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String part : text.split(",")) {
            final String p = part.trim();
            if (p.startsWith("+")) {
                final int eq = p.indexOf('=');
                if (eq < 2) {
                    throw new HeaderException("bad topic attribute '" + p + "'");
                }
                out.put(p.substring(1, eq), p.substring(eq + 1));
            } else if (!p.startsWith("-") && !p.isEmpty()) {
                throw new HeaderException("bad topic attribute '" + p + "': use +key=value or -key");
            }
        }
        return out;
    }

    private static TopicType typeOf(final String messageType, final boolean order) {
        if (messageType == null || messageType.isEmpty() || "UNSPECIFIED".equalsIgnoreCase(messageType)) {
            return order ? TopicType.FIFO : TopicType.NORMAL;
        }
        try {
            return TopicType.valueOf(messageType.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new HeaderException("unknown message.type " + messageType);
        }
    }

    private CompletableFuture<RemotingCommand> createGroup(final RemotingCommand request) {
        if (request.body() == null) {
            throw new HeaderException("the request has no body");
        }
        final var body = Json.parse(request.body());
        final String name = Json.text(body, "groupName");
        if (name == null) {
            throw new HeaderException("the subscription group has no groupName");
        }
        final var retry = body.get("retryMaxTimes");
        final GroupConfig config = new GroupConfig(name,
                retry != null && retry.canConvertToInt() ? retry.asInt() : GroupConfig.DEFAULT_MAX_RECONSUME_TIMES,
                body.path("consumeMessageOrderly").asBoolean(false), false, Map.of());
        return messaging.groups().createOrUpdate(config).thenApply(g -> Responses.success(request));
    }

    private RemotingCommand topicConfig(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        final Optional<TopicConfig> found = messaging.route(topic);
        if (found.isEmpty()) {
            return Responses.error(request, ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker. topic: " + topic);
        }
        final TopicConfig c = found.get();
        final Map<String, Object> attributes = new LinkedHashMap<>(c.attributes());
        if (c.type() != TopicType.NORMAL) {
            attributes.put(MESSAGE_TYPE, c.type().name());
        }
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("attributes", attributes);
        body.put("order", c.type() == TopicType.FIFO);
        body.put("perm", c.permissions());
        body.put("readQueueNums", c.queueCount());
        body.put("topicFilterType", "SINGLE_TAG");
        body.put("topicName", topic);
        body.put("topicSysFlag", 0);
        body.put("writeQueueNums", c.queueCount());
        // As RocketMQ's broker: the mapping only when asked for it (the admin tool sets lo), else the plain config.
        if (request.boolField("lo", false)) {
            statics.find(topic).ifPresent(m -> body.put("mappingDetail", new Json.Raw(m.detailJson(
                    identity.brokerName()))));
        }
        return Responses.success(request).body(Json.bytes(Json.write(body)));
    }

    private RemotingCommand topicStats(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        final Optional<TopicConfig> config = messaging.route(topic);
        if (config.isEmpty()) {
            return Responses.error(request, ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist");
        }
        final StringBuilder sb = new StringBuilder("{\"offsetTable\":{");
        for (int q = 0; q < config.get().queueCount(); q++) {
            if (q > 0) {
                sb.append(',');
            }
            sb.append(identity.messageQueueJson(topic, q)).append(":{\"lastUpdateTimestamp\":0,\"maxOffset\":")
                    .append(messaging.maxOffset(topic, q)).append(",\"minOffset\":")
                    .append(messaging.minOffset(topic, q)).append('}');
        }
        return Responses.success(request).body(Json.bytes(sb.append("}}")));
    }

    private RemotingCommand connections(final RemotingCommand request) {
        final String group = request.requireField("consumerGroup");
        final List<ConsumerClient> clients = messaging.consumers().clients(group);
        if (clients.isEmpty()) {
            return Responses.error(request, 206, "the consumer group[" + group + "] not online");
        }
        final List<Map<String, Object>> set = new ArrayList<>();
        final Map<String, Object> subscriptions = new LinkedHashMap<>();
        for (ConsumerClient c : clients) {
            final Map<String, Object> conn = new LinkedHashMap<>();
            conn.put("clientAddr", c.clientId().contains("@") ? c.clientId().substring(0, c.clientId().indexOf('@'))
                    : c.clientId());
            conn.put("clientId", c.clientId());
            conn.put("language", "JAVA");
            conn.put("version", RemotingCommand.SERVER_VERSION);
            set.add(conn);
            c.subscriptions().forEach((topic, s) -> {
                final Map<String, Object> sub = new LinkedHashMap<>();
                sub.put("classFilterMode", false);
                sub.put("codeSet", List.of());
                sub.put("expressionType", s.type());
                sub.put("subString", s.expression());
                sub.put("subVersion", c.lastHeartbeat());
                sub.put("tagsSet", List.of());
                sub.put("topic", topic);
                subscriptions.put(topic, sub);
            });
        }
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("connectionSet", set);
        body.put("consumeFromWhere", "CONSUME_FROM_LAST_OFFSET");
        body.put("consumeType", "CONSUME_PASSIVELY");
        body.put("messageModel", clients.get(0).broadcast() ? "BROADCASTING" : "CLUSTERING");
        body.put("subscriptionTable", subscriptions);
        return Responses.success(request).body(Json.bytes(Json.write(body)));
    }

    private CompletableFuture<RemotingCommand> queryMessage(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        final String key = request.requireField("key");
        final boolean unique = request.boolField("_UNIQUE_KEY_QUERY", false);
        final CompletableFuture<List<StoredMessage>> found = unique
                // By offset message id the core finds a message of any topic: keep the answer inside the topic asked
                // about, which is the one the caller was authorized for.
                ? messaging.queryById(topic, key).thenApply(o -> o.filter(m -> topic.equals(m.topic()))
                        .map(List::of).orElse(List.of()))
                : messaging.queryByKey(topic, key, Math.max(1, Math.min(request.intField("maxNum", 32), 64)),
                        request.longField("beginTimestamp", 0), request.longField("endTimestamp", Long.MAX_VALUE));
        return found.thenApply(list -> {
            if (list.isEmpty()) {
                return Responses.error(request, ResponseCode.QUERY_NOT_FOUND,
                        "can not find message, maybe time range not correct");
            }
            return Responses.success(request).put("indexLastUpdateTimestamp", System.currentTimeMillis())
                    .put("indexLastUpdatePhyoffset", 0L).payload(records(list));
        });
    }

    private static CompositeByteBuf records(final List<StoredMessage> messages) {
        final CompositeByteBuf body = Unpooled.compositeBuffer(Math.max(2, messages.size()));
        for (StoredMessage m : messages) {
            body.addComponent(true, Unpooled.wrappedBuffer(m.record().duplicate()));
        }
        return body;
    }

    private CompletableFuture<RemotingCommand> resetOffset(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        final String group = request.requireField("group");
        final long timestamp = request.requireLong("timestamp");
        return messaging.consumers().resetOffsets(group, topic, timestamp).thenApply(offsets -> {
            final StringBuilder sb = new StringBuilder("{\"offsetTable\":{");
            boolean first = true;
            for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(identity.messageQueueJson(topic, e.getKey())).append(':').append(e.getValue());
            }
            final byte[] body = Json.bytes(sb.append("}}"));
            for (Channel ch : channels.consumerChannels(group)) {
                ch.writeAndFlush(RemotingCommand.request(RESET_CONSUMER_CLIENT_OFFSET, opaques.incrementAndGet(), true)
                        .put("topic", topic).put("group", group).put("timestamp", timestamp).put("isForce", true)
                        .body(body));
            }
            return Responses.success(request).body(body);
        });
    }
}
