/**
 * A Flink job driver run in a child JVM by conformance-tests' {@code KafkaFlinkIT}: flink-connector-kafka needs the
 * kafka-clients line it is built against, not the one the other Kafka tests use.
 */
package io.junction.conformance.flink;
