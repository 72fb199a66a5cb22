/**
 * Running the real broker as a child process: {@link io.junction.conformance.support.BrokerProcess} starts
 * {@code broker/target/junction.jar} on free ports with a temporary data directory, waits for {@code /health} with a
 * deadline, stops it with SIGTERM and hands over its exit code and output. Protocol conformance tests use it too.
 */
package io.junction.conformance.support;
