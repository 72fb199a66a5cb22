/**
 * What front-ends share beyond the contract: TCP listeners on the shared event loops ({@link
 * io.junction.spi.kit.NettyListener}) and the one rule for creating a topic a client names that does not exist yet
 * ({@link io.junction.spi.kit.TopicProvisioner}).
 */
package io.junction.spi.kit;
