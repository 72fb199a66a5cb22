package io.junction.cloudevents;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.core.StoreException;
import io.junction.spi.http.HttpExchange;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;

/** Error responses shared by the handlers. */
final class Responses {
    private Responses() {
    }

    static void problem(final HttpExchange exchange, final ObjectMapper json, final Problem problem) {
        exchange.respond(problem.status(), Problem.CONTENT_TYPE, problem.toJson(json));
    }

    /** 429 with {@code Retry-After} (whole seconds, at least 1): a namespace's publish quota is used up. */
    static void tooManyRequests(final HttpExchange exchange, final ObjectMapper json, final long retryAfterMillis) {
        final Problem p = new Problem(HttpResponseStatus.TOO_MANY_REQUESTS, null,
                "publish quota exceeded; retry in " + retryAfterMillis + " ms");
        final FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, p.status(),
                Unpooled.copiedBuffer(p.toJson(json), StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, Problem.CONTENT_TYPE)
                .set(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, (retryAfterMillis + 999) / 1000)));
        exchange.respond(r);
    }

    static void json(final HttpExchange exchange, final HttpResponseStatus status, final String body) {
        exchange.respond(status, "application/json", body);
    }

    /** A failed core call as a problem: the core's error mapped onto an HTTP status. */
    static void storeFailure(final HttpExchange exchange, final ObjectMapper json, final Throwable failure) {
        problem(exchange, json, toProblem(failure));
    }

    static Problem toProblem(final Throwable failure) {
        Throwable e = failure;
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof Problem p) {
            return p;
        }
        if (e instanceof StoreException se) {
            final HttpResponseStatus status = switch (se.error()) {
                case TOPIC_NOT_FOUND, GROUP_NOT_FOUND, QUEUE_NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
                case PERMISSION_DENIED -> HttpResponseStatus.FORBIDDEN;
                case MESSAGE_TOO_LARGE -> HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
                case ILLEGAL_MESSAGE, ILLEGAL_ARGUMENT, ILLEGAL_FILTER -> HttpResponseStatus.BAD_REQUEST;
                case DISK_FULL, IO_ERROR, UNAVAILABLE, QUEUE_SEALED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
                case BUSY -> HttpResponseStatus.TOO_MANY_REQUESTS;
            };
            return new Problem(status, null, se.error() + ": " + se.getMessage());
        }
        return new Problem(HttpResponseStatus.INTERNAL_SERVER_ERROR, null, String.valueOf(e));
    }
}
