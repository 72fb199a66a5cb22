/**
 * A proxy over several store groups: the store-group list ({@link io.junction.cluster.proxy.groups.StoreGroup}),
 * queue placement as logical-queue segments kept in the metadata group's replicated key-value configs
 * ({@link io.junction.cluster.proxy.groups.TopicPlacement}, {@link io.junction.cluster.proxy.groups.PlacementBook}),
 * and the contract over the groups ({@link io.junction.cluster.proxy.groups.GroupedMessaging}) that routes each call
 * to the group and physical queue a logical queue's segment names, translating offsets both ways.
 */
package io.junction.cluster.proxy.groups;
