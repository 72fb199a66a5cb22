/**
 * What front-ends share beyond the contract: TCP listeners on the shared event loops ({@link
 * io.junction.spi.kit.NettyListener}) and the popped messages a front-end holds for its clients, renewed, acked,
 * nacked or given back by one rule ({@link io.junction.spi.kit.HeldMessages}).
 */
package io.junction.spi.kit;
