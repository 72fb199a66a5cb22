package io.junction.spi.http;

/** Path-prefix routing on the shared HTTP listener. */
public interface HttpRoutes {

    /**
     * Sends every request whose path is {@code pathPrefix} or lies below it to {@code handler}. A prefix ending in
     * {@code /} matches anything after it ({@code /topics/} matches {@code /topics/orders}); one without matches itself
     * and its sub-paths ({@code /mqtt} matches {@code /mqtt} and {@code /mqtt/x}, not {@code /mqttx}). The longest
     * matching prefix wins.
     *
     * @return the registration; close it to remove the route (a front-end does so in {@code stop})
     * @throws IllegalArgumentException if the prefix does not start with {@code /}
     * @throws IllegalStateException    if the prefix is already registered
     */
    HttpRoute register(String pathPrefix, HttpHandler handler);

    /** The listener's base URL as clients see it, e.g. {@code http://127.0.0.1:8080}, for endpoints. */
    String baseUrl();
}
