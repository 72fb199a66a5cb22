/**
 * The broker's meters: one Prometheus registry for everything (JVM basics, store traffic and disk, front-ends'
 * connections and their own meters), scraped at {@code GET /metrics}. Store traffic arrives through the store's
 * {@link io.junction.core.engine.StoreObserver}; store size is read from {@code MessageStore.stats()} at scrape time.
 */
package io.junction.broker.metrics;
