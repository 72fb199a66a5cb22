package io.junction.amqp;

import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;

/** The AMQP 1.0 error conditions this front-end sends (spec part 2.8.15-2.8.18). */
final class AmqpErrors {
    static final Symbol DECODE_ERROR = Symbol.valueOf("amqp:decode-error");
    static final Symbol INVALID_FIELD = Symbol.valueOf("amqp:invalid-field");
    static final Symbol FRAME_SIZE_TOO_SMALL = Symbol.valueOf("amqp:frame-size-too-small");
    static final Symbol FRAMING_ERROR = Symbol.valueOf("amqp:connection:framing-error");
    static final Symbol NOT_FOUND = Symbol.valueOf("amqp:not-found");
    static final Symbol NOT_ALLOWED = Symbol.valueOf("amqp:not-allowed");
    static final Symbol NOT_IMPLEMENTED = Symbol.valueOf("amqp:not-implemented");
    static final Symbol ILLEGAL_STATE = Symbol.valueOf("amqp:illegal-state");
    static final Symbol UNAUTHORIZED = Symbol.valueOf("amqp:unauthorized-access");
    static final Symbol RESOURCE_LIMIT = Symbol.valueOf("amqp:resource-limit-exceeded");
    /** An operator closed the connection. */
    static final Symbol CONNECTION_FORCED = Symbol.valueOf("amqp:connection:forced");
    static final Symbol RESOURCE_LOCKED = Symbol.valueOf("amqp:resource-locked");
    static final Symbol INTERNAL = Symbol.valueOf("amqp:internal-error");
    static final Symbol MESSAGE_SIZE_EXCEEDED = Symbol.valueOf("amqp:link:message-size-exceeded");
    static final Symbol UNATTACHED_HANDLE = Symbol.valueOf("amqp:session:unattached-handle");
    static final Symbol TRANSACTION_UNKNOWN = Symbol.valueOf("amqp:transaction:unknown-id");
    static final Symbol TRANSACTION_ROLLBACK = Symbol.valueOf("amqp:transaction:rollback");
    static final Symbol INVALID_CLIENT_ID = Symbol.valueOf("amqp:invalid-field");

    private AmqpErrors() {
    }

    static ErrorCondition of(final Symbol condition, final String description) {
        return new ErrorCondition(condition, description);
    }
}
