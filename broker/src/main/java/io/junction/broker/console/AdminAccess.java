package io.junction.broker.console;

import io.junction.broker.http.JsonReplies;
import io.junction.spi.http.HttpAuthentication;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.junction.tenancy.AccessControl;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The admin API's rule for the console API: with security on, only super users (HTTP Basic or Bearer, as for
 * {@code /admin/users}); with security off, everyone, as the rest of the admin API.
 *
 * <p>A POST must carry {@code Content-Type: application/json} (415 otherwise), so another site's page cannot make a
 * visitor's browser change the broker without a CORS preflight, which this API never grants.
 *
 * <p>A request the console page sends (header {@value #CONSOLE_HEADER}) gets its 401 without the
 * {@code WWW-Authenticate} challenge: a browser seeing the challenge would pop its own login dialog over the page's
 * login form.
 */
final class AdminAccess implements HttpHandler {

    static final String CONSOLE_HEADER = "X-Junction-Console";

    private final AccessControl access;
    private final HttpHandler next;

    AdminAccess(final AccessControl access, final HttpHandler next) {
        this.access = access;
        this.next = next;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (HttpMethod.POST.equals(exchange.request().method()) && !json(exchange)) {
            // A cross-site page can POST a form or text/plain without asking; application/json needs a CORS
            // preflight, which this API never grants. That matters most with security off, when no credentials stop it.
            JsonReplies.problem(exchange, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                    "send the body as Content-Type: application/json");
            return;
        }
        final HttpExchange answered = exchange.request().headers().contains(CONSOLE_HEADER)
                ? new Unchallenged(exchange) : exchange;
        HttpAuthentication.authenticate(access, "http", answered, (ex, principal) -> {
            if (access.enabled() && !principal.superUser()) {
                JsonReplies.problem(ex, HttpResponseStatus.FORBIDDEN, "only super users use the admin API");
                return;
            }
            next.handle(ex);
        });
    }

    private static boolean json(final HttpExchange exchange) {
        final String type = exchange.request().headers().get(HttpHeaderNames.CONTENT_TYPE);
        return type != null && type.toLowerCase(Locale.ROOT).startsWith("application/json");
    }

    /** Passes everything through but drops the authentication challenge from a 401. */
    private record Unchallenged(HttpExchange inner) implements HttpExchange {
        @Override
        public FullHttpRequest request() {
            return inner.request();
        }

        @Override
        public String path() {
            return inner.path();
        }

        @Override
        public Map<String, List<String>> queryParameters() {
            return inner.queryParameters();
        }

        @Override
        public Channel channel() {
            return inner.channel();
        }

        @Override
        public void respond(final FullHttpResponse response) {
            if (HttpResponseStatus.UNAUTHORIZED.equals(response.status())) {
                response.headers().remove(HttpHeaderNames.WWW_AUTHENTICATE);
            }
            inner.respond(response);
        }

        @Override
        public void respond(final HttpResponseStatus status, final String contentType, final String body) {
            inner.respond(status, contentType, body);
        }

        @Override
        public ChannelPipeline takeOver() {
            return inner.takeOver();
        }
    }
}
