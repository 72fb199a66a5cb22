package io.junction.broker.http;

import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code GET /health}: 200 once every listener is up, 503 while starting or stopping; JSON either way. */
public final class HealthHandler implements HttpHandler {

    public static final String PATH = "/health";

    private final HealthState state;

    public HealthHandler(final HealthState state) {
        this.state = state;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (!Responses.allowGetOnly(exchange)) {
            return;
        }
        final HttpResponseStatus status = state.status() == HealthState.Status.UP
                ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE;
        final FullHttpResponse response = Responses.of(status, Responses.JSON, state.toJson());
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        exchange.respond(response);
    }
}
