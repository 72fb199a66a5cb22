package io.junction.remoting.security;

import static io.junction.tenancy.Action.CREATE;
import static io.junction.tenancy.Action.DELETE;
import static io.junction.tenancy.Action.GET;
import static io.junction.tenancy.Action.PUB;
import static io.junction.tenancy.Action.SUB;
import static io.junction.tenancy.Action.UPDATE;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.remoting.processor.AdminProcessor;
import io.junction.remoting.processor.PopProcessor;
import io.junction.remoting.processor.RouteProcessor;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.reply.ReplyProtocol;
import io.junction.spi.ReplyAddress;
import io.junction.tenancy.Action;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The one table of what every request code touches, read from the header field (or body) the client names it in.
 * With security on, a code missing here is refused to everyone but super users.
 *
 * <p>Decisions worth knowing:
 * <ul>
 *   <li>Resource names are checked exactly as sent: a namespaced SDK wraps them ({@code acme%orders}) and the policy
 *   rejects names outside the caller's namespace. A group's retry and dead-letter topics need SUB on the group
 *   ({@link Demand#topic}).</li>
 *   <li>Route query: PUB, SUB or GET on the topic, any one. A producer needs the route to publish and a consumer to
 *   subscribe; asking for GET on top would make every ordinary policy name it. The route of the auto-create template
 *   {@value RouteProcessor#AUTO_CREATE_TOPIC} is open to any authenticated caller (a producer asks for it before a
 *   new topic exists; it shows only this broker's address); the cluster or broker name as a topic is CLUSTER GET.</li>
 *   <li>Whatever names a message by its log offset (view by id, send-back, end transaction) is checked against the
 *   topic of the stored message, looked up, never against a header field the client could leave blank or fake;
 *   a half message counts as its real topic.</li>
 *   <li>Producer groups (heartbeat, unregister, end transaction) are not authorized, as in RocketMQ, but must lie
 *   in the caller's namespace: transaction check-backs, with the message, go to a producer group's clients. The
 *   SDK's own {@value #CLIENT_INNER_PRODUCER} group is exempt.</li>
 *   <li>Offsets, locks, POP and pull need SUB on both the topic and the group; min/max/search offsets SUB on the
 *   topic. Admin codes need CREATE/UPDATE/DELETE/GET on the topic or group, or the named action on the cluster;
 *   the topic list is filtered to the topics the caller may LIST or GET. User and ACL administration is for super
 *   users only.</li>
 * </ul>
 */
public final class RequestPermissions {
    /** The producer group every RocketMQ client registers on its own. */
    static final String CLIENT_INNER_PRODUCER = "CLIENT_INNER_PRODUCER";

    private final Messaging messaging;
    private final String clusterName;
    private final String brokerName;
    private final Map<Integer, Permission> table = new HashMap<>();

    public RequestPermissions(final Messaging messaging, final String clusterName, final String brokerName) {
        this.messaging = messaging;
        this.clusterName = clusterName;
        this.brokerName = brokerName;
        build();
    }

    /** The permission of a request code, or null when the code is not in the table. */
    Permission of(final int code) {
        return table.get(code);
    }

    /** Every code the table covers (the unit test checks the dispatcher's codes against it). */
    public Set<Integer> codes() {
        return Set.copyOf(table.keySet());
    }

    private void build() {
        // ---- send
        put(RequestCode.SEND_MESSAGE, r -> List.of(Demand.topic(r.requireField("topic"), PUB)));
        put(RequestCode.SEND_MESSAGE_V2, r -> List.of(Demand.topic(r.requireField("b"), PUB)));
        put(RequestCode.SEND_BATCH_MESSAGE, r -> List.of(Demand.topic(r.requireField("b"), PUB)));
        put(RequestCode.SEND_REPLY_MESSAGE, r -> replyDemands(r.requireField("topic"), r.field("properties")));
        put(RequestCode.SEND_REPLY_MESSAGE_V2, r -> replyDemands(r.requireField("b"), r.field("i")));
        table.put(RequestCode.CONSUMER_SEND_MSG_BACK, new Permission(r -> {
            final Demand group = Demand.group(r.requireField("group"), SUB);
            return messageTopic(r.requireLong("offset"), SUB).thenApply(topic -> list(group, topic));
        }, null, false));
        table.put(RequestCode.END_TRANSACTION, new Permission(r -> {
            final String producerGroup = r.field("producerGroup");
            return messaging.lookup(r.longField("commitLogOffset", -1)).thenApply(found -> {
                // Only a half message can be ended; anything else (or nothing) is left to super users.
                final String real = found.filter(m -> SystemNames.HALF_TOPIC.equals(m.topic()))
                        .map(StoredMessage::realTopic).orElse(null);
                return list(producerGroup == null ? null : producerGroupDemand(producerGroup),
                        real == null ? Demand.SUPER : Demand.topic(real, PUB).hide());
            });
        }, null, false));

        // ---- consume
        for (int code : new int[] {RequestCode.PULL_MESSAGE, RequestCode.LITE_PULL_MESSAGE, PopProcessor.POP_MESSAGE}) {
            table.put(code, Permission.ofWaiting(r -> List.of(Demand.topic(r.requireField("topic"), SUB),
                    Demand.group(r.requireField("consumerGroup"), SUB))));
        }
        for (int code : new int[] {RequestCode.QUERY_CONSUMER_OFFSET, RequestCode.UPDATE_CONSUMER_OFFSET,
            PopProcessor.ACK_MESSAGE, PopProcessor.CHANGE_MESSAGE_INVISIBLETIME}) {
            put(code, r -> List.of(Demand.topic(r.requireField("topic"), SUB),
                    Demand.group(r.requireField("consumerGroup"), SUB)));
        }
        put(PopProcessor.QUERY_ASSIGNMENT, r -> {
            final JsonNode body = body(r);
            return List.of(Demand.topic(required(body, "topic"), SUB),
                    Demand.group(required(body, "consumerGroup"), SUB));
        });
        for (int code : new int[] {RequestCode.GET_MAX_OFFSET, RequestCode.GET_MIN_OFFSET,
            RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, RequestCode.GET_EARLIEST_MSG_STORETIME}) {
            put(code, r -> List.of(Demand.topic(r.requireField("topic"), SUB)));
        }

        // ---- client management
        put(RequestCode.HEART_BEAT, this::heartbeat);
        put(RequestCode.UNREGISTER_CLIENT, r -> list(
                r.field("producerGroup") == null ? null : producerGroupDemand(r.field("producerGroup")),
                r.field("consumerGroup") == null ? null : Demand.group(r.field("consumerGroup"), SUB)));
        put(RequestCode.GET_CONSUMER_LIST_BY_GROUP, r -> List.of(Demand.group(r.requireField("consumerGroup"),
                SUB)));
        put(RequestCode.CHECK_CLIENT_CONFIG, r -> List.of(Demand.group(required(body(r), "group"), SUB)));
        put(RequestCode.LOCK_BATCH_MQ, this::lockBatch);
        put(RequestCode.UNLOCK_BATCH_MQ, this::lockBatch);

        // ---- name-server role
        put(RequestCode.GET_ROUTEINFO_BY_TOPIC, r -> {
            final String topic = r.requireField("topic");
            if (RouteProcessor.AUTO_CREATE_TOPIC.equals(topic)) {
                return List.of();
            }
            if (topic.equals(clusterName) || topic.equals(brokerName)) {
                return List.of(Demand.cluster(clusterName, GET));
            }
            return List.of(Demand.topic(topic, PUB, SUB, GET));
        });
        put(RequestCode.GET_BROKER_CLUSTER_INFO, r -> List.of(Demand.cluster(clusterName, GET)));
        table.put(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
                new Permission(r -> CompletableFuture.completedFuture(List.of()), VisibleTopics.FILTER, false));

        // ---- administration
        for (int code : new int[] {RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.UPDATE_AND_CREATE_STATIC_TOPIC}) {
            put(code, r -> {
                final String topic = r.requireField("topic");
                return List.of(Demand.topic(topic, messaging.route(topic).isPresent() ? UPDATE : CREATE));
            });
        }
        put(RequestCode.DELETE_TOPIC_IN_BROKER, r -> List.of(Demand.topic(r.requireField("topic"), DELETE)));
        put(RequestCode.DELETE_TOPIC_IN_NAMESRV, r -> List.of(Demand.topic(r.requireField("topic"), DELETE)));
        put(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, r -> {
            final String group = required(body(r), "groupName");
            return List.of(Demand.group(group, messaging.groups().get(group).isPresent() ? UPDATE : CREATE));
        });
        put(RequestCode.GET_TOPIC_STATS_INFO, r -> List.of(Demand.topic(r.requireField("topic"), GET)));
        put(AdminProcessor.GET_TOPIC_CONFIG, r -> List.of(Demand.topic(r.requireField("topic"), GET)));
        put(RequestCode.GET_CONSUME_STATS, r -> {
            final List<Demand> demands = new ArrayList<>();
            demands.add(Demand.group(r.requireField("consumerGroup"), GET));
            final String topicList = r.field("topicList");
            final String topics = topicList != null && !topicList.isBlank() ? topicList : r.field("topic");
            for (String topic : topics == null ? new String[0] : topics.split(";")) {
                if (!topic.isBlank()) {
                    demands.add(Demand.topic(topic.trim(), GET));
                }
            }
            return demands;
        });
        put(RequestCode.GET_CONSUMER_CONNECTION_LIST, r -> List.of(Demand.group(r.requireField("consumerGroup"),
                GET)));
        put(RequestCode.GET_BROKER_RUNTIME_INFO, r -> List.of(Demand.cluster(clusterName, GET)));
        put(RequestCode.QUERY_MESSAGE, r -> List.of(Demand.topic(r.requireField("topic"), SUB)));
        table.put(RequestCode.VIEW_MESSAGE_BY_ID, new Permission(
                r -> messageTopic(r.requireLong("offset"), SUB).thenApply(RequestPermissions::list), null, false));
        put(AdminProcessor.INVOKE_BROKER_TO_RESET_OFFSET, r -> List.of(Demand.group(r.requireField("group"), UPDATE),
                Demand.topic(r.requireField("topic"), SUB)));
        put(RequestCode.PUT_KV_CONFIG, r -> List.of(Demand.cluster(clusterName, UPDATE)));
        put(RequestCode.DELETE_KV_CONFIG, r -> List.of(Demand.cluster(clusterName, DELETE)));
        put(RequestCode.GET_KV_CONFIG, r -> List.of(Demand.cluster(clusterName, GET)));
        put(RequestCode.GET_KVLIST_BY_NAMESPACE, r -> List.of(Demand.cluster(clusterName, GET)));
        for (int code = RequestCode.AUTH_CREATE_USER; code <= RequestCode.AUTH_LIST_ACL; code++) {
            put(code, r -> List.of(Demand.SUPER));
        }
    }

    private void put(final int code, final Function<RemotingCommand, List<Demand>> demands) {
        if (table.put(code, Permission.of(demands)) != null) {
            throw new IllegalStateException("request code " + code + " is in the table twice");
        }
    }

    /**
     * A reply: publishing to the reply topic, and, for a reply to another protocol's request, to the topic of the
     * request's reply-to address, where it is stored.
     */
    private static List<Demand> replyDemands(final String replyTopic, final String properties) {
        final String target = MessageProperties.decode(properties).get(ReplyProtocol.REPLY_TO_CLIENT);
        return list(Demand.topic(replyTopic, PUB), target == null || !target.startsWith(ReplyProtocol.ADDRESS_PREFIX)
                ? null : Demand.topic(ReplyProtocol.namespacePrefix(replyTopic) + ReplyAddress.coreTopic(
                        target.substring(ReplyProtocol.ADDRESS_PREFIX.length())), PUB));
    }

    private static Demand producerGroupDemand(final String group) {
        return CLIENT_INNER_PRODUCER.equals(group) ? null : Demand.groupInNamespace(group);
    }

    /**
     * {@code action} on the topic of the message stored at {@code offset}: its real topic for a half message;
     * super users only for other internal records; nothing when there is no such message (the processor answers
     * "not found" and reveals nothing).
     */
    private CompletableFuture<Demand> messageTopic(final long offset, final Action action) {
        return messaging.lookup(offset).thenApply((Optional<StoredMessage> found) -> {
            if (found.isEmpty()) {
                return null;
            }
            final StoredMessage m = found.get();
            if (SystemNames.HALF_TOPIC.equals(m.topic())) {
                final String real = m.realTopic();
                return real == null ? Demand.SUPER : Demand.topic(real, action).hide();
            }
            return SystemNames.isTransactionTopic(m.topic()) ? Demand.SUPER : Demand.topic(m.topic(), action).hide();
        });
    }

    private List<Demand> heartbeat(final RemotingCommand r) {
        final JsonNode data = body(r);
        final List<Demand> out = new ArrayList<>();
        for (JsonNode producer : iterable(data.get("producerDataSet"))) {
            final String group = Json.text(producer, "groupName");
            if (group != null) {
                addIfPresent(out, producerGroupDemand(group));
            }
        }
        for (JsonNode consumer : iterable(data.get("consumerDataSet"))) {
            final String group = Json.text(consumer, "groupName");
            if (group == null || group.isEmpty()) {
                continue;
            }
            out.add(Demand.group(group, SUB));
            for (JsonNode sub : iterable(consumer.get("subscriptionDataSet"))) {
                final String topic = Json.text(sub, "topic");
                if (topic != null) {
                    out.add(Demand.topic(topic, SUB));
                }
            }
        }
        return out;
    }

    private List<Demand> lockBatch(final RemotingCommand r) {
        final JsonNode body = body(r);
        final List<Demand> out = new ArrayList<>();
        out.add(Demand.group(required(body, "consumerGroup"), SUB));
        for (JsonNode mq : iterable(body.get("mqSet"))) {
            final String topic = Json.text(mq, "topic");
            if (topic != null) {
                out.add(Demand.topic(topic, SUB));
            }
        }
        return out;
    }

    private static JsonNode body(final RemotingCommand request) {
        if (request.body() == null || request.body().length == 0) {
            throw new HeaderException("the request has no body");
        }
        return Json.parse(request.body());
    }

    private static String required(final JsonNode node, final String field) {
        final String v = Json.text(node, field);
        if (v == null || v.isEmpty()) {
            throw new HeaderException("the request body has no " + field);
        }
        return v;
    }

    private static Iterable<JsonNode> iterable(final JsonNode node) {
        return node == null || !node.isArray() ? List.of() : node;
    }

    private static void addIfPresent(final List<Demand> out, final Demand d) {
        if (d != null) {
            out.add(d);
        }
    }

    /** The non-null demands, in order. */
    private static List<Demand> list(final Demand... demands) {
        final List<Demand> out = new ArrayList<>(demands.length);
        for (Demand d : demands) {
            addIfPresent(out, d);
        }
        return out;
    }
}
