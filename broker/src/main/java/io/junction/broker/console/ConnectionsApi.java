package io.junction.broker.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.clients.ClientRegistry.ClientConnection;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Locale;

/**
 * Connected clients for the console:
 * <pre>
 * GET    /admin/connections?protocol=&amp;q=&amp;offset=&amp;limit=   a page of connections, oldest first
 * DELETE /admin/connections/{id}                         disconnects one (the protocol's way, with a reason)
 * </pre>
 * Lists what the front-ends put into the {@link ClientRegistry}; a page holds at most {@value TopicsApi#MAX_ROWS}
 * connections, each with at most {@value #MAX_DETAILS} details (subscriptions, links).
 */
final class ConnectionsApi implements HttpHandler {

    static final String PATH = "/admin/connections";
    static final int MAX_DETAILS = 50;

    private final ClientRegistry clients;

    ConnectionsApi(final ClientRegistry clients) {
        this.clients = clients;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        final String id = exchange.path().length() > PATH.length() ? exchange.path().substring(PATH.length() + 1)
                : "";
        final HttpMethod method = exchange.request().method();
        try {
            if (id.isEmpty() && HttpMethod.GET.equals(method)) {
                list(exchange);
            } else if (!id.isEmpty() && HttpMethod.DELETE.equals(method)) {
                final ClientConnection c = clients.get(parseId(id)).orElse(null);
                if (c == null) {
                    JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no connection " + id);
                    return;
                }
                c.disconnect().run();
                JsonReplies.json(exchange, HttpResponseStatus.OK, describe(c));
            } else {
                JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no such connection resource");
            }
        } catch (final IllegalArgumentException e) {
            JsonReplies.problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private void list(final HttpExchange exchange) {
        final int offset = (int) JsonReplies.longParam(exchange, "offset", 0, 0, Integer.MAX_VALUE);
        final int limit = (int) JsonReplies.longParam(exchange, "limit", 50, 1, TopicsApi.MAX_ROWS);
        final String protocol = JsonReplies.param(exchange, "protocol", "");
        final String q = JsonReplies.param(exchange, "q", "").toLowerCase(Locale.ROOT);
        final List<ClientConnection> matching = clients.list().stream()
                .filter(c -> protocol.isEmpty() || c.protocol().equals(protocol))
                .filter(c -> q.isEmpty() || c.clientId().toLowerCase(Locale.ROOT).contains(q)
                        || c.remote().contains(q) || c.user().toLowerCase(Locale.ROOT).contains(q))
                .toList();
        final ObjectNode page = JsonReplies.JSON.createObjectNode().put("total", matching.size())
                .put("offset", offset).put("limit", limit);
        final ArrayNode rows = page.putArray("connections");
        matching.stream().skip(offset).limit(limit).forEach(c -> rows.add(describe(c)));
        JsonReplies.json(exchange, HttpResponseStatus.OK, page);
    }

    private static ObjectNode describe(final ClientConnection c) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode().put("id", c.id()).put("protocol", c.protocol())
                .put("version", c.version())
                .put("clientId", c.clientId()).put("user", c.user()).put("remote", c.remote())
                .put("connectedAt", c.connectedAt());
        final ArrayNode details = n.putArray("details");
        c.details().get().stream().limit(MAX_DETAILS).forEach(details::add);
        return n;
    }

    private static long parseId(final String id) {
        try {
            return Long.parseLong(id);
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("a connection id is a number: " + id);
        }
    }
}
