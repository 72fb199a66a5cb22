/** What operators see of the broker: RocketMQ-named metrics on {@code /metrics} and over OTLP. */
package io.junction.conformance.observability;
