/**
 * The RocketMQ 5 gRPC front-end: {@code apache.rocketmq.v2.MessagingService} for the 5.x SDKs, on the stubs generated
 * from {@code org.apache.rocketmq:rocketmq-proto} and grpc's own shaded Netty.
 *
 * <p>{@link io.junction.grpc.GrpcFrontEnd} starts the server; {@link io.junction.grpc.GrpcMessagingService} answers
 * routes, heartbeats, assignments and the Telemetry stream; {@link io.junction.grpc.SendActivity},
 * {@link io.junction.grpc.ReceiveActivity} and {@link io.junction.grpc.OffsetActivity} map sends, POP consumption
 * and offset consumption (pull, committed offsets) onto the core; {@link
 * io.junction.grpc.MessageMapping} is the one place gRPC messages become canonical messages and back;
 * {@link io.junction.grpc.Statuses} turns core errors into the proto's status codes.
 *
 * <p>Tenancy: {@link io.junction.grpc.ResourceNames} maps a {@code Resource{resource_namespace, name}} to its core name
 * {@code ns%name} and back. With security on, {@link io.junction.grpc.CallAuthenticator} checks every call's signed
 * {@code authorization} header and {@link io.junction.grpc.AuthorizingListener} holds each request to the table in
 * {@link io.junction.grpc.RpcPermissions}; with security off neither is installed.
 */
package io.junction.grpc;
