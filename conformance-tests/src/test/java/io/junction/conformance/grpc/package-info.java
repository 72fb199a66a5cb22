/**
 * Conformance of the gRPC front-end: the real RocketMQ 5.x Java client ({@code rocketmq-client-java}) against the real
 * broker jar over real sockets — producers (normal, FIFO, delay, transaction), SimpleConsumer and PushConsumer.
 */
package io.junction.conformance.grpc;
