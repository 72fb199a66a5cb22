package io.junction.spi.http;

/**
 * Handles the requests of one route. One instance serves every connection, so it must be thread-safe; per-connection
 * state belongs in handlers added after {@link HttpExchange#takeOver()}.
 */
@FunctionalInterface
public interface HttpHandler {

    /**
     * Called on the connection's event loop, once per request. Must not block: start asynchronous work and call
     * {@link HttpExchange#respond} when it completes. Must eventually respond or take over, exactly once, or the
     * connection stalls (the broker answers one request at a time per connection, so responses stay in order).
     */
    void handle(HttpExchange exchange);
}
