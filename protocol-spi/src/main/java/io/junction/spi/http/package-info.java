/**
 * Routes on the broker's shared HTTP listener (port 8080 by default).
 *
 * <p>The broker owns the listener, its codec, the request size bound and the read timeout; front-ends claim path
 * prefixes with {@link io.junction.spi.http.HttpRoutes#register} (CloudEvents {@code /topics/} and
 * {@code /subscriptions/}, MQTT over WebSocket {@code /mqtt}). A request reaches a route as a complete
 * {@link io.netty.handler.codec.http.FullHttpRequest} inside an {@link io.junction.spi.http.HttpExchange}: answer it with
 * {@code respond}, from any thread, or take the connection over (WebSocket upgrade) with {@code takeOver}.
 */
package io.junction.spi.http;
