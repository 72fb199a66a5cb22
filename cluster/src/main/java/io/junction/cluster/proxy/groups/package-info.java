/**
 * A proxy over several store groups: the store-group list ({@link io.junction.cluster.proxy.groups.StoreGroup}),
 * queue placement as logical-queue segments kept in the metadata group's replicated key-value configs
 * ({@link io.junction.cluster.proxy.groups.TopicPlacement}, {@link io.junction.cluster.proxy.groups.PlacementBook}),
 * and the contract over the groups ({@link io.junction.cluster.proxy.groups.GroupedMessaging}) that routes each call
 * to the group and physical queue a logical queue's segment names, translating offsets both ways; scaling a topic
 * across groups ({@link io.junction.cluster.proxy.groups.QueueScaler}: seal the old segment, open a new one; or close
 * the last queues; the placement written as a compare-and-set, so proxies scaling one topic at once never drop each
 * other's segments), FIFO and in-place consumer groups kept in order across a seam
 * ({@link io.junction.cluster.proxy.groups.SeamHolds}), sending again what met a sealed queue
 * ({@link io.junction.cluster.proxy.groups.SealedQueueRetry}), carrying what a store could not deliver into a sealed
 * queue ({@link io.junction.cluster.proxy.groups.SealedForwarder}),
 * and store groups added and removed at run time ({@link io.junction.cluster.proxy.groups.RuntimeGroupBook},
 * {@link io.junction.cluster.proxy.groups.GroupedProxy}).
 */
package io.junction.cluster.proxy.groups;
