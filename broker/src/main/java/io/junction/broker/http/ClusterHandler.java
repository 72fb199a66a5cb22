package io.junction.broker.http;

import io.junction.cluster.ClusterNode;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code GET /cluster}: this node, the members, the leader, the term, the commit and applied indexes (each member's
 * replication progress when this node leads) and whether this node takes writes. Reading the Raft state is in-memory
 * and cheap, so it answers on the event loop.
 */
public final class ClusterHandler implements HttpHandler {

    public static final String PATH = "/cluster";

    private final ClusterNode node;

    public ClusterHandler(final ClusterNode node) {
        this.node = node;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (!Responses.allowGetOnly(exchange)) {
            return;
        }
        JsonReplies.json(exchange, HttpResponseStatus.OK, JsonReplies.JSON.valueToTree(node.status()));
    }
}
