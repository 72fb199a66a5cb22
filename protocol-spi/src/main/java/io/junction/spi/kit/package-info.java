/**
 * What front-ends share beyond the contract: TCP listeners on the shared event loops ({@link
 * io.junction.spi.kit.NettyListener}), the one rule for creating a topic a client names that does not exist yet
 * ({@link io.junction.spi.kit.TopicProvisioner}) and the popped messages a front-end holds for its clients, renewed,
 * acked, nacked or given back by one rule ({@link io.junction.spi.kit.HeldMessages}).
 */
package io.junction.spi.kit;
