/**
 * The RocketMQ 5 gRPC front-end: {@code apache.rocketmq.v2.MessagingService} for the 5.x SDKs, on the stubs generated
 * from {@code org.apache.rocketmq:rocketmq-proto} and grpc's own shaded Netty.
 *
 * <p>{@link io.junction.grpc.GrpcFrontEnd} starts the server; {@link io.junction.grpc.GrpcMessagingService} answers
 * routes, heartbeats, assignments and the Telemetry stream; {@link io.junction.grpc.SendActivity} and
 * {@link io.junction.grpc.ReceiveActivity} map sends and POP consumption onto the core; {@link
 * io.junction.grpc.MessageMapping} is the one place gRPC messages become canonical messages and back;
 * {@link io.junction.grpc.Statuses} turns core errors into the proto's status codes.
 */
package io.junction.grpc;
