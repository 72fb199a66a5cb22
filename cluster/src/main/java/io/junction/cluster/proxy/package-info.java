/**
 * The proxy role: front-ends only, reaching a store group over the contract. {@link io.junction.cluster.proxy.ProxyNode}
 * follows the group's leader ({@link io.junction.cluster.proxy.LeaderLocator}) and keeps a
 * {@link io.junction.cluster.proxy.MetadataMirror} of its metadata so that the contract's synchronous reads never wait
 * on the network; {@link io.junction.cluster.proxy.ProxyMessaging} is the contract its front-ends hold.
 */
package io.junction.cluster.proxy;
