/**
 * RocketMQ 5 static topics ({@code mqadmin updateStaticTopic} / {@code remappingStaticTopic}, request code 513): the
 * mapping a broker holds for a topic (logic queue to broker and physical queue), what this node accepts of it, and
 * where it is kept. A Junction node is one broker whose queues are already logical (their segments may span store
 * groups below the broker name), so a static topic is a topic whose logic queue {@code q} is its queue {@code q}.
 */
package io.junction.remoting.statictopic;
