/**
 * Replicated store groups on Apache Ratis: the members and identity of a cluster, the Raft node that hosts this
 * replica, and the state machine whose replicated state is the commit log itself.
 */
package io.junction.cluster;
