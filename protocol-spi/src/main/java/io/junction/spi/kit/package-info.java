/**
 * What front-ends share beyond the contract: TCP listeners on the shared event loops ({@link
 * io.junction.spi.kit.NettyListener}).
 */
package io.junction.spi.kit;
