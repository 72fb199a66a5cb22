/**
 * The runnable broker: {@link io.junction.broker.Main} parses the command line (picocli), resolves the configuration,
 * starts the {@link io.junction.broker.lifecycle.Broker} and installs the shutdown hook. Sub-packages: {@code config}
 * (keys and loading), {@code lifecycle} (start/stop order), {@code http} (the shared HTTP listener, health, metrics),
 * {@code metrics} (meters), {@code netty} (shared event loops).
 */
package io.junction.broker;
