/**
 * A RocketMQ 4.9.x Java client driver for conformance tests: run in its own JVM against a broker, it plays scenarios
 * (send styles, push and pull consumers, tags, delay levels, transactions, new groups, orderly consumers
 * started before the sends) and prints what it sent and received as
 * {@link io.junction.conformance.rocketmq4.Events event lines}; the test that started it asserts on those lines.
 */
package io.junction.conformance.rocketmq4;
