package io.junction.broker.http;

import io.junction.broker.metrics.BrokerMetrics;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code GET /metrics}: the Prometheus text format, rendered off the event loop. */
public final class MetricsHandler implements HttpHandler {

    public static final String PATH = "/metrics";

    private static final Logger LOG = LoggerFactory.getLogger(MetricsHandler.class);

    private final BrokerMetrics metrics;

    public MetricsHandler(final BrokerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (!Responses.allowGetOnly(exchange)) {
            return;
        }
        metrics.scrape().whenComplete((text, failure) -> {
            if (failure == null) {
                exchange.respond(HttpResponseStatus.OK, BrokerMetrics.CONTENT_TYPE, text);
            } else if (failure instanceof RejectedExecutionException
                    || failure.getCause() instanceof RejectedExecutionException) {
                exchange.respond(Responses.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "metrics are busy"));
            } else {
                LOG.warn("metrics scrape failed", failure);
                exchange.respond(Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "scrape failed"));
            }
        });
    }
}
