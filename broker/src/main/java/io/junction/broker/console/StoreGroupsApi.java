package io.junction.broker.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.cluster.proxy.groups.GroupChangeRefused;
import io.junction.cluster.proxy.groups.GroupedProxy;
import io.junction.cluster.proxy.groups.StoreGroup;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * Store groups of a proxy, added and removed at run time:
 * <pre>
 * POST   /admin/cluster/groups          {"name": "g3", "contracts": "h1:9801,h2:9801"} (or a list) adds a group
 * DELETE /admin/cluster/groups/{name}   removes an added group (retires it while sealed segments there are readable)
 * </pre>
 * Refusals: 400 a malformed name or address; 409 a name configured or added already, a group whose segments still
 * take writes (naming the topics), a configured group, every group number taken (64 groups added and not removed); 422 a group whose leader does not answer; 404 an unknown
 * group, or a node that is not a proxy. {@code GET /cluster} lists the groups.
 */
final class StoreGroupsApi implements HttpHandler {

    static final String PATH = "/admin/cluster/groups";

    /** The proxy's link to its store groups, null when this node is not a proxy. */
    private final GroupedProxy proxy;

    StoreGroupsApi(final GroupedProxy proxy) {
        this.proxy = proxy;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (proxy == null) {
            JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND,
                    "store groups are a proxy's (cluster.role=proxy)");
            return;
        }
        final String name = exchange.path().length() > PATH.length() ? exchange.path().substring(PATH.length() + 1)
                : "";
        final HttpMethod method = exchange.request().method();
        try {
            if (name.isEmpty() && HttpMethod.POST.equals(method)) {
                add(exchange, JsonReplies.body(exchange));
            } else if (!name.isEmpty() && HttpMethod.DELETE.equals(method)) {
                remove(exchange, name);
            } else {
                JsonReplies.problem(exchange, HttpResponseStatus.NOT_FOUND, "no such store-group resource");
            }
        } catch (final IllegalArgumentException e) {
            JsonReplies.problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private void add(final HttpExchange exchange, final JsonNode body) {
        final List<String> contracts = new ArrayList<>();
        final JsonNode given = body.path("contracts");
        if (given.isArray()) {
            given.forEach(a -> contracts.add(a.asText().trim()));
        } else {
            for (String a : given.asText("").split(",")) {
                if (!a.isBlank()) {
                    contracts.add(a.trim());
                }
            }
        }
        final StoreGroup group = new StoreGroup(body.path("name").asText("").trim(), contracts);
        proxy.addGroup(group).whenComplete((v, e) -> {
            if (e != null) {
                refused(exchange, e);
                return;
            }
            final ObjectNode answer = JsonReplies.JSON.createObjectNode().put("added", group.name());
            group.contracts().forEach(answer.putArray("contracts")::add);
            JsonReplies.json(exchange, HttpResponseStatus.CREATED, answer);
        });
    }

    private void remove(final HttpExchange exchange, final String name) {
        proxy.removeGroup(name).whenComplete((use, e) -> {
            if (e != null) {
                refused(exchange, e);
                return;
            }
            final ObjectNode answer = JsonReplies.JSON.createObjectNode();
            if (use.sealedIn().isEmpty()) {
                answer.put("removed", name);
            } else {
                answer.put("retired", name);
                use.sealedIn().forEach(answer.putArray("readableTopics")::add);
            }
            JsonReplies.json(exchange, HttpResponseStatus.OK, answer);
        });
    }

    private static void refused(final HttpExchange exchange, final Throwable error) {
        final Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause()
                : error;
        if (!(cause instanceof GroupChangeRefused refused)) {
            JsonReplies.failure(exchange, cause);
            return;
        }
        final HttpResponseStatus status = switch (refused.reason()) {
            case DUPLICATE, IN_USE, CONFIGURED, NUMBERS_TAKEN -> HttpResponseStatus.CONFLICT;
            case UNREACHABLE -> HttpResponseStatus.UNPROCESSABLE_ENTITY;
            case UNKNOWN -> HttpResponseStatus.NOT_FOUND;
        };
        JsonReplies.problem(exchange, status, refused.getMessage());
    }
}
