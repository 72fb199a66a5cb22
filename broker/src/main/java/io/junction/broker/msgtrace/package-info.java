/**
 * Message trace as RocketMQ writes it (the trace records RocketMQ 4.4+ clients send with {@code enableMsgTrace}),
 * written by the broker itself for topics whose attribute {@code trace.enabled} is {@code true}, whatever protocol
 * the message came and went by: {@link io.junction.broker.msgtrace.MessageTraceWriter} turns events into records,
 * {@link io.junction.broker.msgtrace.TraceBatchWriter} packs them many to a trace message off the traced message's
 * thread, and {@link io.junction.broker.msgtrace.MessageTraceReader} finds a message's records again.
 */
package io.junction.broker.msgtrace;
