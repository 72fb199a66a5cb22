/**
 * The web console at {@code /console} and the JSON API under {@code /admin/...} it reads: overview, topics, consumer
 * groups, message search with trace. Everything goes through the {@code Messaging} contract and the metrics registry;
 * the front-end is static files and WebJars served from the jar.
 */
package io.junction.broker.console;
