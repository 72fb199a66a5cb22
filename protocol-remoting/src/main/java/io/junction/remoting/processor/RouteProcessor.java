package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.meta.TopicConfig;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.statictopic.StaticTopic;
import io.junction.remoting.statictopic.StaticTopics;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The name-server role: topic routes (every queue is on this node), cluster info and the topic list.
 *
 * <p>For an unknown topic the answer is TOPIC_NOT_EXIST, as a name server gives; a producer then asks for
 * {@value #AUTO_CREATE_TOPIC}, which this node publishes with the INHERIT bit so the client sends the new topic here
 * and the core creates it on the first send (or refuses it when auto-creation is off). The cluster name and broker
 * name resolve as topics too, as admin tools expect.
 */
public final class RouteProcessor implements RequestProcessor {
    /** The auto-create template topic producers fall back to. */
    public static final String AUTO_CREATE_TOPIC = "TBW102";
    static final int PERM_INHERIT = 1;
    private static final int TEMPLATE_QUEUES = 8;

    private final Messaging messaging;
    private final BrokerIdentity identity;
    private final StaticTopics statics;

    public RouteProcessor(final Messaging messaging, final BrokerIdentity identity, final StaticTopics statics) {
        this.messaging = messaging;
        this.identity = identity;
        this.statics = statics;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        return switch (request.code()) {
            case RequestCode.GET_ROUTEINFO_BY_TOPIC -> Responses.done(route(request));
            case RequestCode.GET_BROKER_CLUSTER_INFO -> Responses.done(clusterInfo(request));
            case RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER -> Responses.done(topicList(request));
            default -> Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
        };
    }

    private RemotingCommand route(final RemotingCommand request) {
        final String topic = request.requireField("topic");
        final Optional<TopicConfig> config = messaging.route(topic);
        final int queues;
        final int perm;
        if (config.isPresent()) {
            queues = config.get().queueCount();
            perm = config.get().permissions();
        } else if (AUTO_CREATE_TOPIC.equals(topic)) {
            queues = TEMPLATE_QUEUES;
            perm = TopicConfig.PERM_READ_WRITE | PERM_INHERIT;
        } else if (topic.equals(identity.clusterName()) || topic.equals(identity.brokerName())) {
            queues = 1;
            perm = TopicConfig.PERM_READ_WRITE | PERM_INHERIT;
        } else {
            return Responses.error(request, ResponseCode.TOPIC_NOT_EXIST,
                    "No topic route info in name server for the topic: " + topic);
        }
        final Optional<StaticTopic> mapping = config.isPresent() ? statics.find(topic) : Optional.empty();
        return Responses.success(request).body(Json.bytes(routeJson(queues, config.isPresent()
                ? config.get().writeQueueCount() : queues, perm, mapping)));
    }

    /**
     * TopicRouteData JSON for a topic with {@code queues} queues on this node, the first {@code writeQueues} taking
     * writes (fewer once a proxy scaled the topic in: producers skip the closed ones, consumers read them all). A
     * static topic's route also carries {@code topicQueueMappingByBroker}, this broker's {@code TopicQueueMappingInfo}:
     * clients then address its queues as logic queues of the scope's mock broker name ({@code __syslo__global__})
     * and send those requests here.
     */
    String routeJson(final int queues, final int writeQueues, final int perm, final Optional<StaticTopic> mapping) {
        final Map<String, Object> queueData = new LinkedHashMap<>();
        queueData.put("brokerName", identity.brokerName());
        queueData.put("perm", perm);
        queueData.put("readQueueNums", queues);
        queueData.put("topicSysFlag", 0);
        queueData.put("writeQueueNums", writeQueues);
        final Map<String, Object> route = new LinkedHashMap<>();
        route.put("brokerDatas", List.of(brokerData()));
        route.put("filterServerTable", Map.of());
        route.put("queueDatas", List.of(queueData));
        mapping.ifPresent(m -> route.put("topicQueueMappingByBroker",
                Map.of(identity.brokerName(), new Json.Raw(m.infoJson(identity.brokerName())))));
        return Json.write(route);
    }

    private Map<String, Object> brokerData() {
        final Map<String, Object> brokerData = new LinkedHashMap<>();
        brokerData.put("brokerAddrs", Map.of("0", identity.address()));
        brokerData.put("brokerName", identity.brokerName());
        brokerData.put("cluster", identity.clusterName());
        brokerData.put("enableActingMaster", false);
        return brokerData;
    }

    private RemotingCommand clusterInfo(final RemotingCommand request) {
        final Map<String, Object> info = new LinkedHashMap<>();
        info.put("brokerAddrTable", Map.of(identity.brokerName(), brokerData()));
        info.put("clusterAddrTable", Map.of(identity.clusterName(), List.of(identity.brokerName())));
        return Responses.success(request).body(Json.bytes(Json.write(info)));
    }

    private RemotingCommand topicList(final RemotingCommand request) {
        final List<String> names = new ArrayList<>(new TreeSet<>(
                messaging.topics().list().stream().map(TopicConfig::name).toList()));
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("topicList", names);
        return Responses.success(request).body(Json.bytes(Json.write(body)));
    }
}
