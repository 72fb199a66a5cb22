package io.junction.remoting;

/**
 * How this node presents itself to Remoting clients: one broker (master, id 0) of one cluster, at the address clients
 * reach this front-end on.
 *
 * @param address {@code host:port} written into routes
 */
public record BrokerIdentity(String brokerName, String clusterName, String address) {
}
