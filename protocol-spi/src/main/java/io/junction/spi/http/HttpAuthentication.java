package io.junction.spi.http;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.AuthResult;
import io.junction.tenancy.Credentials;
import io.junction.tenancy.Principal;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Who sent an HTTP request: {@code Authorization: Basic} (user name and password) or {@code Bearer} (a token issued
 * to a user), checked by the broker's access control. With security off every request is anonymous and nothing is
 * checked. Refusals are {@code 401} with a {@code WWW-Authenticate} challenge and a problem+json body.
 */
public final class HttpAuthentication {

    private HttpAuthentication() {
    }

    /**
     * Authenticates the request, then calls {@code then} on the connection's event loop with the principal; on
     * refusal answers 401 itself. The request stays readable in {@code then} even when checking took a detour off the
     * event loop (it is retained meanwhile).
     */
    public static void authenticate(final AccessControl access, final String protocol, final HttpExchange exchange,
                                    final BiConsumer<HttpExchange, Principal> then) {
        if (!access.enabled()) {
            then.accept(exchange, Principal.ANONYMOUS);
            return;
        }
        final Credentials credentials = credentials(protocol, exchange);
        if (credentials == null) {
            unauthorized(exchange, "credentials required (Authorization: Basic or Bearer)");
            return;
        }
        final CompletableFuture<AuthResult> result = access.authenticate(credentials);
        if (result.isDone()) {
            finish(exchange, result.getNow(null), then);
            return;
        }
        exchange.request().retain();
        result.whenCompleteAsync((r, e) -> {
            try {
                finish(exchange, e == null ? r : null, then);
            } finally {
                exchange.request().release();
            }
        }, exchange.channel().eventLoop());
    }

    private static void finish(final HttpExchange exchange, final AuthResult r,
                               final BiConsumer<HttpExchange, Principal> then) {
        if (r == null || !r.authenticated()) {
            unauthorized(exchange, "authentication failed");
        } else {
            then.accept(exchange, r.principal().orElseThrow());
        }
    }

    /** The request's credentials, or null when it has none (or a scheme other than Basic and Bearer). */
    static Credentials credentials(final String protocol, final HttpExchange exchange) {
        final String header = exchange.request().headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null) {
            return null;
        }
        final int space = header.indexOf(' ');
        if (space <= 0) {
            return null;
        }
        final String scheme = header.substring(0, space);
        final String value = header.substring(space + 1).trim();
        if ("Bearer".equalsIgnoreCase(scheme) && !value.isEmpty()) {
            return Credentials.token(protocol, value, exchange.channel().remoteAddress());
        }
        if ("Basic".equalsIgnoreCase(scheme)) {
            final String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
            } catch (final IllegalArgumentException e) {
                return null;
            }
            final int colon = decoded.indexOf(':');
            if (colon <= 0) {
                return null;
            }
            return new Credentials(protocol, decoded.substring(0, colon), decoded.substring(colon + 1),
                    exchange.channel().remoteAddress());
        }
        return null;
    }

    private static void unauthorized(final HttpExchange exchange, final String detail) {
        final byte[] body = ("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,\"detail\":\""
                + detail + "\"}").getBytes(StandardCharsets.UTF_8);
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.UNAUTHORIZED, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json")
                .set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"junction\", Bearer realm=\"junction\"");
        exchange.respond(response);
    }
}
