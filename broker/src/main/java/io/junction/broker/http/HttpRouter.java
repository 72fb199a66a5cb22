package io.junction.broker.http;

import io.junction.spi.http.HttpHandler;
import io.junction.spi.http.HttpRoute;
import io.junction.spi.http.HttpRoutes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The route table: path prefixes to handlers, longest prefix first. Registration is rare and copies the table;
 * lookups, on every request, read an immutable list without locking.
 */
public final class HttpRouter implements HttpRoutes {

    private volatile List<Registration> routes = List.of();
    private volatile String baseUrl = "";

    @Override
    public synchronized HttpRoute register(final String pathPrefix, final HttpHandler handler) {
        Objects.requireNonNull(pathPrefix, "pathPrefix");
        Objects.requireNonNull(handler, "handler");
        if (!pathPrefix.startsWith("/")) {
            throw new IllegalArgumentException("an HTTP route prefix starts with '/': " + pathPrefix);
        }
        if (routes.stream().anyMatch(r -> r.prefix.equals(pathPrefix))) {
            throw new IllegalStateException("the HTTP route " + pathPrefix + " is already registered");
        }
        final Registration registration = new Registration(pathPrefix, handler);
        final List<Registration> next = new ArrayList<>(routes);
        next.add(registration);
        next.sort(Comparator.comparingInt((Registration r) -> r.prefix.length()).reversed());
        routes = List.copyOf(next);
        return registration;
    }

    /** The handler for a decoded request path, or null when no route matches. */
    public HttpHandler find(final String path) {
        for (final Registration r : routes) {
            if (matches(r.prefix, path)) {
                return r.handler;
            }
        }
        return null;
    }

    @Override
    public String baseUrl() {
        return baseUrl;
    }

    /** Set once the listener is bound, before any front-end starts. */
    void baseUrl(final String url) {
        this.baseUrl = url;
    }

    static boolean matches(final String prefix, final String path) {
        if (prefix.endsWith("/")) {
            return path.startsWith(prefix);
        }
        return path.startsWith(prefix)
                && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
    }

    private synchronized void unregister(final Registration registration) {
        final List<Registration> next = new ArrayList<>(routes);
        if (next.remove(registration)) {
            routes = List.copyOf(next);
        }
    }

    private final class Registration implements HttpRoute {
        private final String prefix;
        private final HttpHandler handler;

        Registration(final String prefix, final HttpHandler handler) {
            this.prefix = prefix;
            this.handler = handler;
        }

        @Override
        public String prefix() {
            return prefix;
        }

        @Override
        public void close() {
            unregister(this);
        }
    }
}
