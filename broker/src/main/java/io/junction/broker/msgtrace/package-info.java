/**
 * Message trace as RocketMQ writes it (the trace records RocketMQ 4.4+ clients send with {@code enableMsgTrace}),
 * written by the broker itself for topics whose attribute {@code trace.enabled} is {@code true}, whatever protocol
 * the message came and went by.
 */
package io.junction.broker.msgtrace;
