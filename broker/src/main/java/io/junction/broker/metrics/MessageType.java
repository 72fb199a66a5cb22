package io.junction.broker.metrics;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.txn.TransactionMessages;

/** RocketMQ's kinds of message as sent: the {@code message_type} label and the type of its trace record. */
enum MessageType {
    NORMAL("Normal", 0),
    TRANSACTION("Transaction", 1),
    DELAY("Delay", 3),
    FIFO("Fifo", 4);

    /** The {@code message_type} label value. */
    final String label;
    /** The ordinal of RocketMQ's {@code MessageType} a trace record carries. */
    final int traceType;

    MessageType(final String label, final int traceType) {
        this.label = label;
        this.traceType = traceType;
    }

    static MessageType of(final Message m) {
        if (TransactionMessages.isHalf(m)) {
            return TRANSACTION;
        }
        if (m.property(MessageProperties.DELIVER_AT) != null || m.property(MessageProperties.DELAY_LEVEL) != null
                || m.property(MessageProperties.DELAY_SEC) != null || m.property(MessageProperties.DELAY_MS) != null) {
            return DELAY;
        }
        return m.messageGroup() != null ? FIFO : NORMAL;
    }
}
