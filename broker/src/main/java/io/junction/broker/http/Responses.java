package io.junction.broker.http;

import io.junction.spi.http.HttpExchange;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** Builds the small responses the broker's own routes and errors send. */
final class Responses {

    static final String TEXT = "text/plain; charset=utf-8";
    static final String JSON = "application/json";

    private Responses() {
    }

    static FullHttpResponse of(final HttpResponseStatus status, final String contentType, final String body) {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        return response;
    }

    static FullHttpResponse text(final HttpResponseStatus status, final String body) {
        return of(status, TEXT, body + "\n");
    }

    /**
     * Answers 405 (with {@code Allow}) unless the request's method is GET or HEAD.
     *
     * @return whether the request may proceed
     */
    static boolean allowGetOnly(final HttpExchange exchange) {
        final HttpMethod method = exchange.request().method();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method)) {
            return true;
        }
        final FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED,
                method + " is not allowed on " + exchange.path());
        response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
        exchange.respond(response);
        return false;
    }
}
