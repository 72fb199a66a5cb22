package io.junction.core.meta;

/** The kind of messages a topic takes (RocketMQ 5's {@code message.type} attribute). */
public enum TopicType {
    NORMAL,
    FIFO,
    DELAY,
    TRANSACTION,
    /** Any type is accepted (RocketMQ 5's MIXED). */
    MIXED
}
