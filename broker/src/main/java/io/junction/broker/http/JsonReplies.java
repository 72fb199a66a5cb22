package io.junction.broker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.spi.http.HttpExchange;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * JSON answers of the broker's own HTTP routes (admin API, console API, {@code /cluster}): bodies, RFC 7807 problems,
 * and the request's parameters and JSON body. One mapper for all of them.
 */
public final class JsonReplies {

    public static final ObjectMapper JSON = new ObjectMapper();

    private JsonReplies() {
    }

    public static void json(final HttpExchange exchange, final HttpResponseStatus status, final JsonNode body) {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body.toString().getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        exchange.respond(response);
    }

    public static void problem(final HttpExchange exchange, final HttpResponseStatus status, final String detail) {
        final ObjectNode p = JSON.createObjectNode().put("type", "about:blank").put("title", status.reasonPhrase())
                .put("status", status.code()).put("detail", detail);
        exchange.respond(status, "application/problem+json", p.toString());
    }

    /** Answers a failed store call: a refused argument is the client's fault (400), anything else 503. */
    public static void failure(final HttpExchange exchange, final Throwable error) {
        final Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause()
                : error;
        if (cause instanceof IllegalArgumentException || cause instanceof StoreException se
                && se.error() == StoreError.ILLEGAL_ARGUMENT) {
            problem(exchange, HttpResponseStatus.BAD_REQUEST, cause.getMessage());
        } else {
            problem(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, String.valueOf(cause.getMessage()));
        }
    }

    /** A query parameter's first value, or {@code fallback}. */
    public static String param(final HttpExchange exchange, final String name, final String fallback) {
        final List<String> values = exchange.queryParameters().get(name);
        return values == null || values.isEmpty() || values.get(0).isEmpty() ? fallback : values.get(0);
    }

    /** A numeric query parameter clamped to [min, max]; a malformed one is refused. */
    public static long longParam(final HttpExchange exchange, final String name, final long fallback, final long min,
                          final long max) {
        final String v = param(exchange, name, null);
        if (v == null) {
            return fallback;
        }
        try {
            return Math.max(min, Math.min(max, Long.parseLong(v.trim())));
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number: " + v);
        }
    }

    /** The request body as a JSON object (an empty body is an empty object). */
    public static JsonNode body(final HttpExchange exchange) {
        if (exchange.request().content().readableBytes() == 0) {
            return JSON.createObjectNode();
        }
        try (InputStream in = new ByteBufInputStream(exchange.request().content().duplicate())) {
            final JsonNode node = JSON.readTree(in);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("the body is a JSON object");
            }
            return node;
        } catch (final IOException e) {
            throw new IllegalArgumentException("malformed JSON: " + e.getMessage());
        }
    }
}
