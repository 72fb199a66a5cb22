/**
 * gRPC load: the same rocketmq-client-java 5.x producer load and SimpleConsumer drain against Junction's gRPC
 * front-end and against Apache RocketMQ 5.3.3's proxy, one run ({@link io.junction.bench.grpc.GrpcSideBySide}).
 */
package io.junction.bench.grpc;
