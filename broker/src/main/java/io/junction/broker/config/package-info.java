/**
 * The broker's configuration: the table of every key ({@link io.junction.broker.config.ConfigKeys}), loading and
 * validating values from the defaults, a properties file and command-line overrides
 * ({@link io.junction.broker.config.ConfigLoader}), the resolved result
 * ({@link io.junction.broker.config.BrokerConfig}) and its translation into the store's configuration
 * ({@link io.junction.broker.config.StoreSettings}). Everything is checked before anything starts, so a bad value never
 * leaves a half-started broker.
 */
package io.junction.broker.config;
