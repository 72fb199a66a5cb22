package io.junction.core.message;

import java.util.List;

/**
 * The table every protocol mapping's reserved-property test reads, so the five mappings are held to one rule
 * ({@link MessageProperties#isReserved}): names the core and RocketMQ's bookkeeping own, which a client can neither
 * set as its own property nor see as one, and ordinary names that must pass both ways.
 */
public final class ReservedPropertyTable {
    /** Reserved for every mapping (a few mappings show one of them on purpose; their tests say which and why). */
    public static final List<String> RESERVED = List.of(MessageProperties.TAGS, MessageProperties.KEYS,
            MessageProperties.UNIQUE_ID, MessageProperties.MESSAGE_GROUP, MessageProperties.DELIVER_AT,
            MessageProperties.DELAY_LEVEL, MessageProperties.REAL_TOPIC, MessageProperties.TRANSACTION_PREPARED,
            MessageProperties.PRODUCER_GROUP, MessageProperties.TRANSACTION_ID, MessageProperties.REPLY_TO,
            MessageProperties.CORRELATION_ID, MessageProperties.RETRY_TOPIC, MessageProperties.ORIGIN_MESSAGE_ID,
            MessageProperties.DLQ_ORIGIN_TOPIC, MessageProperties.DLQ_ORIGIN_ID, MessageProperties.CHECK_TIMES,
            MessageProperties.CHECK_IMMUNITY_SECONDS, "RECONSUME_TIME", "MAX_RECONSUME_TIMES", "POP_CK", "CLUSTER",
            "TRACE_ON", "__anything", "__BORNHOST");

    /** Ordinary user property names: kept by every mapping in both directions. */
    public static final List<String> ORDINARY = List.of("color", "order-id", "Tags", "dlq", "TTL", "MSG_TYPE",
            "x_y", "retry");

    private ReservedPropertyTable() {
    }
}
