/**
 * The contract between the broker and its protocol front-ends.
 *
 * <p>A front-end is a {@link io.junction.spi.ProtocolFrontEnd} listed in
 * {@code META-INF/services/io.junction.spi.ProtocolFrontEnd}; the broker finds it with {@link java.util.ServiceLoader},
 * starts it with a {@link io.junction.spi.BrokerContext} unless {@code <name>.enabled=false}, reports its
 * {@link io.junction.spi.Endpoint endpoints} in the ready line, and stops it on shutdown. Everything a front-end needs
 * comes through the context: the {@code Messaging} facade, tenancy, its configuration, the shared Netty event loops,
 * the meter registry and routes on the shared HTTP listener. A front-end never reaches for storage classes or for
 * another front-end.
 */
package io.junction.spi;
