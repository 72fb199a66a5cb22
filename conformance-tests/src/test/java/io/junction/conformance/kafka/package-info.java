/**
 * Kafka conformance: kafka-clients' producer, consumer and admin client, and raw sockets speaking Kafka frames, against
 * the broker jar. One broker per test class ({@link io.junction.conformance.support.WithBroker}).
 */
package io.junction.conformance.kafka;
