package io.junction.broker.http;

import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.Supplier;

/**
 * {@code GET /cluster}: this node, the members, the leader, the term, the commit and applied indexes (each member's
 * replication progress when this node leads) and whether this node takes writes; on a proxy, the store nodes it
 * reaches and the leader it follows. Both are in-memory reads, so it answers on the event loop.
 */
public final class ClusterHandler implements HttpHandler {

    public static final String PATH = "/cluster";

    private final Supplier<?> status;

    /** @param status the node's status of the moment (a record Jackson turns into JSON) */
    public ClusterHandler(final Supplier<?> status) {
        this.status = status;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (!Responses.allowGetOnly(exchange)) {
            return;
        }
        JsonReplies.json(exchange, HttpResponseStatus.OK, JsonReplies.JSON.valueToTree(status.get()));
    }
}
