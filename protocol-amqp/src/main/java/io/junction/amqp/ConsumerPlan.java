package io.junction.amqp;

import io.junction.core.filter.MessageFilter;

/**
 * Where a consumer link reads: the core topic, the POP consumer group, and what happens to the group when the link
 * ends.
 *
 * @param address the address the link attached to (the {@code to} of every delivery)
 * @param topic   the core topic
 * @param group   the POP consumer group
 * @param filter  the JMS selector (or {@link MessageFilter#ALL})
 * @param kind    the semantics the link's capabilities and terminus chose
 * @param since   for a subscription made by this attach: its creation time (epoch ms); messages stored before it are
 *                skipped (the core may index a message sent just before the subscription only after the subscription
 *                took the queues' ends). 0 otherwise.
 */
record ConsumerPlan(String address, String topic, String group, MessageFilter filter, Kind kind, long since) {

    /** How a consumer link maps onto consumer groups. */
    enum Kind {
        /** Competing consumers on a queue: the group named after it, shared by every consumer. */
        QUEUE,
        /** A non-durable topic subscriber: its own group, deleted when the link ends. */
        TRANSIENT,
        /** A durable subscription (client id + name): kept until unsubscribed (link closed, not just detached). */
        DURABLE,
        /** A shared durable subscription: kept until its last link closes (not just detaches). */
        SHARED_DURABLE,
        /** A shared non-durable subscription: deleted when its last link ends. */
        SHARED_VOLATILE
    }
}
