package io.junction.broker.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.junction.cluster.proxy.groups.QueueSegment;
import io.junction.cluster.proxy.groups.ScalingConflict;
import io.junction.cluster.proxy.groups.TopicPlacement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Topics for the console:
 * <pre>
 * GET    /admin/topics?offset=&amp;limit=&amp;q=&amp;system=   a page of topics by name: messages, rates, retention
 * GET    /admin/topics/{name}                      one topic with each queue's offsets
 * POST   /admin/topics                             {"name", "queues", "type", "attributes"} creates or updates
 * DELETE /admin/topics/{name}                      deletes the topic, its queues and offsets
 * POST   /admin/topics/{name}/scale?queues=N&amp;groups=g1,g2   (a proxy over several store groups) moves the writes
 *                                                   of queues outside the named groups there and adds queues up to N
 *                                                   (fewer than open now: closes the last ones, read only);
 *                                                   answers the new placement
 * </pre>
 * A scaling that lost the race for the topic's placement to other proxies every time ({@link ScalingConflict}) is
 * answered 409; one naming an unknown or retired group 400.
 * A page holds at most {@value #MAX_ROWS} topics. Retry, dead-letter and the store's own topics are listed only with
 * {@code system=true}. Queue offsets and route lookups read memory; changes are the store's futures.
 */
final class TopicsApi implements HttpHandler {

    static final String PATH = "/admin/topics";
    static final int MAX_ROWS = 200;
    private static final String SCALE = "/scale";

    private final Messaging core;
    private final TrafficHistory traffic;
    /** Scales a topic across the proxy's store groups; null when this node is not a proxy (nothing to scale across). */
    private final Scaler scaler;

    /** A proxy's scaling of a topic's queues onto store groups ({@code GroupedProxy::scale}). */
    @FunctionalInterface
    interface Scaler {
        CompletableFuture<TopicPlacement> scale(String topic, int queues, List<String> groups);
    }

    TopicsApi(final Messaging core, final TrafficHistory traffic, final Scaler scaler) {
        this.core = core;
        this.traffic = traffic;
        this.scaler = scaler;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        traffic.start();
        final String name = exchange.path().length() > PATH.length() ? exchange.path().substring(PATH.length() + 1)
                : "";
        final HttpMethod method = exchange.request().method();
        try {
            if (name.endsWith(SCALE) && HttpMethod.POST.equals(method)) {
                scale(exchange, name.substring(0, name.length() - SCALE.length()));
            } else if (name.isEmpty() && HttpMethod.GET.equals(method)) {
                list(exchange);
            } else if (name.isEmpty() && HttpMethod.POST.equals(method)) {
                create(exchange, JsonReplies.body(exchange));
            } else if (!name.isEmpty() && HttpMethod.GET.equals(method)) {
                final TopicConfig t = core.topics().get(name).orElse(null);
                if (t == null) {
                    JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no topic " + name);
                } else {
                    JsonReplies.json(exchange, HttpResponseStatus.OK, describe(t, traffic.topicRates(), true));
                }
            } else if (!name.isEmpty() && HttpMethod.DELETE.equals(method)) {
                core.topics().delete(name).whenComplete((deleted, e) -> {
                    if (e != null) {
                        JsonReplies.failure(exchange, e);
                    } else if (!deleted) {
                        JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no topic " + name);
                    } else {
                        JsonReplies.json(exchange, HttpResponseStatus.OK,
                                JsonReplies.JSON.createObjectNode().put("deleted", name));
                    }
                });
            } else {
                JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no such topic resource");
            }
        } catch (final IllegalArgumentException e) {
            JsonReplies.problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private void scale(final HttpExchange exchange, final String topic) {
        if (scaler == null) {
            JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND,
                    "scaling is done by a proxy over several store groups (cluster.role=proxy)");
            return;
        }
        final TopicConfig config = core.topics().get(topic).orElse(null);
        if (config == null) {
            JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no topic " + topic);
            return;
        }
        // By default the queues taking writes now (a topic scaled in keeps its closed queues closed).
        final int queues = (int) JsonReplies.longParam(exchange, "queues",
                core.route(topic).map(TopicConfig::writeQueueCount).orElse(config.queueCount()), 1,
                TopicConfig.MAX_QUEUES);
        final List<String> groups = Arrays.stream(JsonReplies.param(exchange, "groups", "").split(","))
                .map(String::trim).filter(g -> !g.isEmpty()).toList();
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("groups names the store groups the topic's writes go to: groups=g1,g2");
        }
        scaler.scale(topic, queues, groups).whenComplete((placement, e) -> {
            if (e != null) {
                final Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof ScalingConflict) {
                    JsonReplies.problem(exchange, HttpResponseStatus.CONFLICT, cause.getMessage());
                } else {
                    JsonReplies.failure(exchange, e);
                }
                return;
            }
            final ObjectNode answer = JsonReplies.JSON.createObjectNode().put("topic", topic)
                    .put("placement", placement.format());
            final ArrayNode logical = answer.putArray("queues");
            for (int q = 0; q < placement.queueCount(); q++) {
                final ArrayNode segments = logical.addArray();
                for (QueueSegment s : placement.queue(q)) {
                    final ObjectNode n = segments.addObject().put("group", s.group())
                            .put("physicalQueue", s.physicalQueue()).put("logicalStart", s.logicalStart())
                            .put("physicalStart", s.physicalStart());
                    if (s.open()) {
                        n.putNull("sealedEnd");
                    } else {
                        n.put("sealedEnd", s.sealedEnd());
                    }
                }
            }
            JsonReplies.json(exchange, HttpResponseStatus.OK, answer);
        });
    }

    private void list(final HttpExchange exchange) {
        final int offset = (int) JsonReplies.longParam(exchange, "offset", 0, 0, Integer.MAX_VALUE);
        final int limit = (int) JsonReplies.longParam(exchange, "limit", 50, 1, MAX_ROWS);
        final boolean system = Boolean.parseBoolean(JsonReplies.param(exchange, "system", "false"));
        final String q = JsonReplies.param(exchange, "q", "").toLowerCase(Locale.ROOT);
        final List<TopicConfig> matching = core.topics().list().stream()
                .filter(t -> system || !isSystem(t.name()))
                .filter(t -> q.isEmpty() || t.name().toLowerCase(Locale.ROOT).contains(q))
                .sorted(Comparator.comparing(TopicConfig::name))
                .toList();
        final TrafficHistory.Rates rates = traffic.topicRates();
        final ObjectNode page = JsonReplies.JSON.createObjectNode().put("total", matching.size())
                .put("offset", offset).put("limit", limit);
        final ArrayNode rows = page.putArray("topics");
        matching.stream().skip(offset).limit(limit).forEach(t -> rows.add(describe(t, rates, false)));
        JsonReplies.json(exchange, HttpResponseStatus.OK, page);
    }

    private void create(final HttpExchange exchange, final JsonNode body) {
        final String name = body.path("name").asText("").trim();
        if (name.isEmpty() || name.indexOf('/') >= 0) {
            throw new IllegalArgumentException("a topic needs a name without '/'");
        }
        final Map<String, String> attributes = new HashMap<>();
        body.path("attributes").properties().forEach(e -> attributes.put(e.getKey(), e.getValue().asText()));
        final TopicType type;
        try {
            type = TopicType.valueOf(body.path("type").asText("NORMAL").toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown topic type " + body.path("type").asText());
        }
        final TopicConfig config = new TopicConfig(name, body.path("queues").asInt(4), type,
                TopicConfig.PERM_READ_WRITE, attributes);
        core.topics().createOrUpdate(config).whenComplete((t, e) -> {
            if (e != null) {
                JsonReplies.failure(exchange, e);
            } else {
                JsonReplies.json(exchange, HttpResponseStatus.CREATED, describe(t, TrafficHistory.Rates.NONE, true));
            }
        });
    }

    private ObjectNode describe(final TopicConfig t, final TrafficHistory.Rates rates, final boolean withQueues) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode();
        n.put("name", t.name()).put("type", t.type().name()).put("queueCount", t.queueCount())
                .put("readable", t.readable()).put("writable", t.writable())
                .put("system", isSystem(t.name()))
                .put("retention", t.compacted() ? "compacted: the latest message of each key"
                        : "segments older than " + core.retention().toHours() + " h")
                .put("inRate", rates.in().getOrDefault(t.name(), 0.0))
                .put("outRate", rates.out().getOrDefault(t.name(), 0.0));
        final ObjectNode attributes = n.putObject("attributes");
        t.attributes().forEach(attributes::put);
        long messages = 0;
        final ArrayNode queues = withQueues ? n.putArray("queues") : null;
        for (int q = 0; q < t.queueCount(); q++) {
            final long min = core.minOffset(t.name(), q);
            final long max = core.maxOffset(t.name(), q);
            messages += Math.max(0, max - min);
            if (queues != null) {
                queues.addObject().put("queueId", q).put("minOffset", min).put("maxOffset", max);
            }
        }
        n.put("messages", messages);
        return n;
    }

    /**
     * Topics the broker keeps for itself: retry and dead-letter topics, the front-ends' state topics
     * ({@code %MQTT%...}), RocketMQ's system topics ({@code RMQ_SYS_*}, trace and transactions, and the core's own
     * {@code rmq_sys_*}, e.g. the queue seals; {@code <cluster>_REPLY_TOPIC}, its request-reply topic) and Kafka's
     * internal ones ({@code __*}).
     */
    static boolean isSystem(final String topic) {
        return SystemNames.isRetryOrDeadLetter(topic) || SystemNames.isTransactionTopic(topic)
                || topic.startsWith("%") || topic.regionMatches(true, 0, "RMQ_SYS_", 0, 8) || topic.startsWith("__")
                || topic.endsWith("_REPLY_TOPIC");
    }
}
