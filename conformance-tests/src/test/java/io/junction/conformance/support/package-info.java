/**
 * Running the real broker as a child process. A test class annotated
 * {@link io.junction.conformance.support.WithBroker @WithBroker(settings = ...)} gets a healthy broker for its tests
 * as a {@link io.junction.conformance.support.RunningBroker} parameter (every protocol's address, HTTP access,
 * restart, crash, kill); tests needing brokers of their own build one with {@code RunningBroker.builder()}.
 * Underneath, {@link io.junction.conformance.support.BrokerProcess} starts {@code broker/target/junction.jar} on free
 * ports, waits for {@code /health} with a deadline, stops it with SIGTERM and hands over its exit code and output;
 * tests of start-up itself use it directly.
 */
package io.junction.conformance.support;
