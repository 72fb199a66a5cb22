package io.junction.broker.console;

import io.junction.spi.http.HttpAuthentication;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.junction.tenancy.AccessControl;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;

/**
 * The admin API's rule for the console API: with security on, only super users (HTTP Basic or Bearer, as for
 * {@code /admin/users}); with security off, everyone, as the rest of the admin API.
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
