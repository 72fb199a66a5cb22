/**
 * The core contract ({@link io.junction.core.Messaging}) over the network: {@link
 * io.junction.cluster.contract.ContractServer} serves a node's local store to peers, {@link
 * io.junction.cluster.contract.RemoteMessaging} is the client a follower (later a proxy) calls it through, and
 * {@link io.junction.cluster.contract.ContractCodec} writes the request and result types in the frames
 * {@link io.junction.cluster.contract.ContractFrame} draws.
 */
package io.junction.cluster.contract;
