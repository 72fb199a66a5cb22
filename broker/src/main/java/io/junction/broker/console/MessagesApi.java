package io.junction.broker.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.broker.msgtrace.MessageTraceReader;
import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Message search for the console:
 * <pre>
 * GET /admin/messages?topic=&amp;id=                  one message by unique id or offset message id
 * GET /admin/messages?topic=&amp;key=[&amp;begin=&amp;end=]   messages carrying a key, newest first
 * GET /admin/messages?topic=&amp;begin=&amp;end=[&amp;max=]   messages stored in a time range (epoch ms), oldest first
 * GET /admin/messages/trace?topic=&amp;id=            the message-trace events recorded for an id
 * </pre>
 * At most {@value #MAX_ROWS} messages per answer, each with a body preview of at most
 * {@value BodyPreview#MAX_BYTES} bytes.
 */
final class MessagesApi implements HttpHandler {

    static final String PATH = "/admin/messages";
    static final int MAX_ROWS = 100;

    private final Messaging core;
    private final MessageTraceReader traces;

    MessagesApi(final Messaging core) {
        this.core = core;
        this.traces = new MessageTraceReader(core);
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (!HttpMethod.GET.equals(exchange.request().method())) {
            JsonReplies.problem(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED, "use GET " + PATH);
            return;
        }
        try {
            final String topic = JsonReplies.param(exchange, "topic", null);
            if (topic == null) {
                throw new IllegalArgumentException("a search needs a topic");
            }
            if (core.route(topic).isEmpty()) {
                JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no topic " + topic);
                return;
            }
            if (exchange.path().equals(PATH + "/trace")) {
                trace(exchange, topic);
            } else if (exchange.path().equals(PATH)) {
                search(exchange, topic);
            } else {
                JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no such message resource");
            }
        } catch (final IllegalArgumentException e) {
            JsonReplies.problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private void search(final HttpExchange exchange, final String topic) {
        final String id = JsonReplies.param(exchange, "id", null);
        final String key = JsonReplies.param(exchange, "key", null);
        final long now = System.currentTimeMillis();
        final long begin = JsonReplies.longParam(exchange, "begin", 0, 0, Long.MAX_VALUE);
        final long end = JsonReplies.longParam(exchange, "end", now, 0, Long.MAX_VALUE);
        final int max = (int) JsonReplies.longParam(exchange, "max", 20, 1, MAX_ROWS);
        final CompletableFuture<List<StoredMessage>> found;
        if (id != null) {
            found = core.queryById(topic, id.trim()).thenApply(m -> m.map(List::of).orElse(List.of()));
        } else if (key != null) {
            found = core.queryByKey(topic, key.trim(), max, begin, end);
        } else if (JsonReplies.param(exchange, "begin", null) != null) {
            found = core.queryByTime(topic, begin, end, max);
        } else {
            throw new IllegalArgumentException("search by id, by key, or by time range (begin and end, epoch ms)");
        }
        found.whenComplete((messages, e) -> {
            if (e != null) {
                JsonReplies.failure(exchange, e);
                return;
            }
            final ObjectNode n = JsonReplies.JSON.createObjectNode().put("topic", topic);
            final ArrayNode rows = n.putArray("messages");
            messages.stream().limit(max).forEach(m -> rows.add(describe(m)));
            JsonReplies.json(exchange, HttpResponseStatus.OK, n);
        });
    }

    private void trace(final HttpExchange exchange, final String topic) {
        final String id = JsonReplies.param(exchange, "id", null);
        if (id == null) {
            throw new IllegalArgumentException("a trace needs the message id");
        }
        final String traceTopic = traces.traceTopic(topic);
        traces.find(traceTopic, id.trim()).whenComplete((events, e) -> {
            if (e != null) {
                JsonReplies.failure(exchange, e);
                return;
            }
            final ObjectNode n = JsonReplies.JSON.createObjectNode().put("id", id).put("traceTopic", traceTopic);
            final ArrayNode rows = n.putArray("events");
            for (final MessageTraceReader.TraceEvent ev : events) {
                rows.addObject().put("type", ev.type()).put("timestamp", ev.timestamp()).put("group", ev.group())
                        .put("topic", ev.topic()).put("host", ev.host()).put("costMs", ev.costMs())
                        .put("success", ev.success()).put("retries", ev.retries());
            }
            JsonReplies.json(exchange, HttpResponseStatus.OK, n);
        });
    }

    private static ObjectNode describe(final StoredMessage m) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode();
        n.put("id", m.uniqueId()).put("offsetId", m.offsetMessageId()).put("topic", m.topic())
                .put("queueId", m.queueId()).put("queueOffset", m.queueOffset()).put("tag", m.tag())
                .put("keys", m.keys()).put("bornTimestamp", m.bornTimestamp())
                .put("storeTimestamp", m.storeTimestamp()).put("bornHost", host(m.bornHost()))
                .put("reconsumeTimes", m.reconsumeTimes());
        final ObjectNode properties = n.putObject("properties");
        for (final Map.Entry<String, String> e : m.properties().entrySet()) {
            properties.put(e.getKey(), e.getValue());
        }
        BodyPreview.describe(m.body(), n);
        return n;
    }

    private static String host(final InetSocketAddress a) {
        return a == null ? "" : a.getHostString() + ':' + a.getPort();
    }
}
