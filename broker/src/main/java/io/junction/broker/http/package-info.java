/**
 * The shared HTTP listener: a Netty server with a bounded request size and a read timeout, a prefix router that
 * front-ends register routes on, and the broker's own routes {@code /health} and {@code /metrics}.
 *
 * <p>Pipeline per connection: connection counter, {@code HttpServerCodec}, {@code HttpObjectAggregator} (size bound,
 * 413 beyond it), {@link io.junction.broker.http.HttpDispatcher} (routing, one request at a time so responses stay in
 * order, read timeout while idle, 404 for unknown paths). Handlers never block the event loop: they answer from
 * completions of asynchronous work.
 */
package io.junction.broker.http;
