package io.junction.broker.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.core.Messaging;
import io.junction.core.SystemNames;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.clients.ClientRegistry.ClientConnection;
import io.junction.spi.clients.PopConsumers.PopConsumer;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Consumer groups for the console:
 * <pre>
 * GET  /admin/groups?offset=&amp;limit=&amp;q=        a page of groups: configuration, clients online, topics consumed
 * GET  /admin/groups/{group}                  lag per queue of each topic, clients with subscriptions, dead letters
 * POST /admin/groups/{group}/reset            {"topic", "timestamp"}: offsets to the first message stored since then
 * POST /admin/groups/{group}/redrive          {"max"}: dead letters back to their topics
 * </pre>
 * A page holds at most {@value TopicsApi#MAX_ROWS} groups; one group's detail at most {@value #MAX_TOPICS} topics.
 * Clients are what their heartbeats tell the core (id and subscriptions), with the protocol and address of the
 * connections listed under the same client id in the {@link ClientRegistry} (empty when no front-end lists it); POP
 * consumers, which send no heartbeat, are what the front-ends noted of their recent pops
 * ({@code PopConsumers}).
 */
final class GroupsApi implements HttpHandler {

    static final String PATH = "/admin/groups";
    static final int MAX_TOPICS = 50;
    static final int MAX_REDRIVE = 10_000;

    private final Messaging core;
    private final ClientRegistry connections;

    GroupsApi(final Messaging core, final ClientRegistry connections) {
        this.connections = connections;
        this.core = core;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        final String rest = exchange.path().length() > PATH.length() ? exchange.path().substring(PATH.length() + 1)
                : "";
        final String[] parts = rest.isEmpty() ? new String[0] : rest.split("/", -1);
        final HttpMethod method = exchange.request().method();
        try {
            if (parts.length == 0 && HttpMethod.GET.equals(method)) {
                list(exchange);
            } else if (parts.length == 1 && HttpMethod.GET.equals(method)) {
                detail(exchange, parts[0]);
            } else if (parts.length == 2 && "reset".equals(parts[1]) && HttpMethod.POST.equals(method)) {
                reset(exchange, parts[0], JsonReplies.body(exchange));
            } else if (parts.length == 2 && "redrive".equals(parts[1]) && HttpMethod.POST.equals(method)) {
                final int max = (int) Math.max(1, Math.min(MAX_REDRIVE,
                        JsonReplies.body(exchange).path("max").asLong(100)));
                core.groups().redriveDeadLetters(parts[0], max).whenComplete((n, e) -> {
                    if (e != null) {
                        JsonReplies.failure(exchange, e);
                    } else {
                        JsonReplies.json(exchange, HttpResponseStatus.OK, JsonReplies.JSON.createObjectNode()
                                .put("group", parts[0]).put("redriven", n));
                    }
                });
            } else {
                JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no such group resource");
            }
        } catch (final IllegalArgumentException e) {
            JsonReplies.problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private void list(final HttpExchange exchange) {
        final int offset = (int) JsonReplies.longParam(exchange, "offset", 0, 0, Integer.MAX_VALUE);
        final int limit = (int) JsonReplies.longParam(exchange, "limit", 50, 1, TopicsApi.MAX_ROWS);
        final String q = JsonReplies.param(exchange, "q", "").toLowerCase(Locale.ROOT);
        final List<GroupConfig> matching = core.groups().list().stream()
                .filter(g -> q.isEmpty() || g.name().toLowerCase(Locale.ROOT).contains(q))
                .sorted(Comparator.comparing(GroupConfig::name)).toList();
        final ObjectNode page = JsonReplies.JSON.createObjectNode().put("total", matching.size())
                .put("offset", offset).put("limit", limit);
        final ArrayNode rows = page.putArray("groups");
        matching.stream().skip(offset).limit(limit).forEach(g -> {
            final ObjectNode n = config(g);
            n.put("clients", core.consumers().clients(g.name()).size());
            n.put("popConsumers", connections.popConsumers().recent(g.name()).size());
            n.put("deadLetters", deadLetters(g.name()).waiting());
            final ArrayNode topics = n.putArray("topics");
            topics(g.name()).forEach(topics::add);
            rows.add(n);
        });
        JsonReplies.json(exchange, HttpResponseStatus.OK, page);
    }

    private void detail(final HttpExchange exchange, final String group) {
        final GroupConfig g = core.groups().get(group).orElse(null);
        if (g == null) {
            JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no group " + group);
            return;
        }
        final ObjectNode n = config(g);
        final ArrayNode clients = n.putArray("clients");
        // The contract knows a consumer by its id; the front-end that accepted it knows its protocol and address.
        final Map<String, List<ClientConnection>> connected = connections.list().stream()
                .filter(c -> !c.clientId().isEmpty())
                .collect(Collectors.groupingBy(ClientConnection::clientId));
        for (final ConsumerClient c : core.consumers().clients(group)) {
            final List<ClientConnection> over = connected.getOrDefault(c.clientId(), List.of());
            final ObjectNode cn = clients.addObject().put("clientId", c.clientId()).put("broadcast", c.broadcast())
                    .put("lastHeartbeat", c.lastHeartbeat())
                    .put("protocol", over.isEmpty() ? "" : over.get(0).protocol())
                    .put("remote", over.stream().map(ClientConnection::remote).distinct()
                            .collect(Collectors.joining(", ")));
            final ObjectNode subs = cn.putObject("subscriptions");
            c.subscriptions().forEach((topic, s) -> subs.put(topic, s.type() + " " + s.expression()));
        }
        popConsumers(n.putArray("popConsumers"), group);
        final DeadLetters dead = deadLetters(group);
        n.put("deadLetterTopic", SystemNames.deadLetterTopic(group)).put("deadLetters", dead.waiting())
                .put("redriven", dead.redriven());
        final List<String> topics = topics(group);
        final List<CompletableFuture<List<QueueLag>>> lags = new ArrayList<>();
        topics.forEach(t -> lags.add(core.consumers().lag(group, t)));
        CompletableFuture.allOf(lags.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            if (e != null) {
                JsonReplies.failure(exchange, e);
                return;
            }
            final ArrayNode rows = n.putArray("topics");
            for (int i = 0; i < topics.size(); i++) {
                final ObjectNode row = rows.addObject().put("topic", topics.get(i));
                final ArrayNode queues = row.putArray("queues");
                long total = 0;
                for (final QueueLag l : lags.get(i).join()) {
                    total += l.lag();
                    queues.addObject().put("queueId", l.queueId()).put("committedOffset", l.committedOffset())
                            .put("maxOffset", l.maxOffset()).put("lag", l.lag())
                            .put("lastStoreTime", l.lastStoreTime()).put("lastConsumedTime", l.lastConsumedTime());
                }
                row.put("lag", total);
            }
            JsonReplies.json(exchange, HttpResponseStatus.OK, n);
        });
    }

    /**
     * The group's recent POP consumers, as the front-ends noted their pops; what a front-end did not know (a Remoting
     * pop names no client id, an AMQP or gRPC receive no address) is filled in from the connection listed under the
     * same protocol with that address or client id.
     */
    private void popConsumers(final ArrayNode out, final String group) {
        final List<PopConsumer> recent = connections.popConsumers().recent(group);
        final List<ClientConnection> listed = recent.isEmpty() ? List.of() : connections.list();
        for (final PopConsumer c : recent) {
            String clientId = c.clientId();
            String remote = c.remote();
            for (final ClientConnection l : listed) {
                if (!l.protocol().equals(c.protocol())) {
                    continue;
                }
                if (clientId.isEmpty() && !remote.isEmpty() && remote.equals(l.remote())) {
                    clientId = l.clientId();
                } else if (remote.isEmpty() && !clientId.isEmpty() && clientId.equals(l.clientId())) {
                    remote = l.remote();
                }
            }
            out.addObject().put("protocol", c.protocol()).put("clientId", clientId).put("remote", remote)
                    .put("lastPop", c.lastPop());
        }
    }

    private void reset(final HttpExchange exchange, final String group, final JsonNode body) {
        final String topic = body.path("topic").asText("");
        if (topic.isEmpty() || !body.path("timestamp").canConvertToLong()) {
            throw new IllegalArgumentException("a reset needs \"topic\" and \"timestamp\" (epoch ms)");
        }
        core.consumers().resetOffsets(group, topic, body.path("timestamp").asLong()).whenComplete((offsets, e) -> {
            if (e != null) {
                JsonReplies.failure(exchange, e);
                return;
            }
            final ObjectNode n = JsonReplies.JSON.createObjectNode().put("group", group).put("topic", topic);
            final ObjectNode o = n.putObject("offsets");
            offsets.forEach((q, off) -> o.put(String.valueOf(q), off));
            JsonReplies.json(exchange, HttpResponseStatus.OK, n);
        });
    }

    /** Topics the group consumed (committed offsets) or its clients subscribe to, sorted, at most the cap. */
    private List<String> topics(final String group) {
        final TreeSet<String> topics = new TreeSet<>(core.consumers().committedTopics(group));
        for (final ConsumerClient c : core.consumers().clients(group)) {
            topics.addAll(c.subscriptions().keySet());
        }
        topics.removeIf(t -> SystemNames.isRetryOrDeadLetter(t) || core.route(t).isEmpty());
        return topics.stream().limit(MAX_TOPICS).toList();
    }

    /** A group's dead letters: those still waiting, and those re-driven to their topics (copies kept in the topic). */
    private record DeadLetters(long waiting, long redriven) {
    }

    private DeadLetters deadLetters(final String group) {
        final String dlq = SystemNames.deadLetterTopic(group);
        final TopicConfig t = core.route(dlq).orElse(null);
        if (t == null) {
            return new DeadLetters(0, 0);
        }
        long waiting = 0;
        long redriven = 0;
        for (int q = 0; q < t.queueCount(); q++) {
            final long min = core.minOffset(dlq, q);
            final long max = core.maxOffset(dlq, q);
            // Redrive reads queue 0 (a dead-letter topic has one) from its committed position on.
            final long from = q == 0 ? Math.min(max, Math.max(min, core.queryOffset(SystemNames.REDRIVE_GROUP, dlq, 0)))
                    : min;
            waiting += Math.max(0, max - from);
            redriven += Math.max(0, from - min);
        }
        return new DeadLetters(waiting, redriven);
    }

    private static ObjectNode config(final GroupConfig g) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode().put("name", g.name())
                .put("maxReconsumeTimes", g.maxReconsumeTimes()).put("fifo", g.fifo()).put("broadcast", g.broadcast())
                .put("inPlace", g.inPlace());
        final ObjectNode attributes = n.putObject("attributes");
        for (final Map.Entry<String, String> e : g.attributes().entrySet()) {
            attributes.put(e.getKey(), e.getValue());
        }
        return n;
    }
}
