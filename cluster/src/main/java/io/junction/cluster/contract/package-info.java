/**
 * The core contract ({@link io.junction.core.Messaging}) over the network: {@link
 * io.junction.cluster.contract.ContractServer} serves a node's local store to peers, {@link
 * io.junction.cluster.contract.RemoteMessaging} is the client a follower or a proxy calls it through (with
 * {@link io.junction.cluster.contract.RemoteAdmin} for the metadata, membership and topology operations a proxy
 * mirrors or forwards), and {@link io.junction.cluster.contract.ContractCodec} and
 * {@link io.junction.cluster.contract.AdminCodec} write the request and result types in the frames
 * {@link io.junction.cluster.contract.ContractFrame} draws.
 */
package io.junction.cluster.contract;
