/**
 * Replicated store groups on Apache Ratis: the members and identity of a cluster, the Raft node that hosts this
 * replica, and the state machine whose replicated state is the commit log itself; the {@code Messaging} front-ends
 * hold on a node ({@link io.junction.cluster.ReplicaMessaging}), which forwards a follower's writes to the leader
 * through the contract over the network ({@link io.junction.cluster.contract}); and the proxy role, front-ends over a
 * store group reached through that contract ({@link io.junction.cluster.proxy}).
 */
package io.junction.cluster;
