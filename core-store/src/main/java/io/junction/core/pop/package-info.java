/**
 * POP consumption: server-side load balancing over a topic's queues, invisibility, receipt handles, acks,
 * visibility changes, and redelivery through retry topics up to the dead-letter topic; durable through checkpoint
 * and ack records in the revive topic.
 */
package io.junction.core.pop;
