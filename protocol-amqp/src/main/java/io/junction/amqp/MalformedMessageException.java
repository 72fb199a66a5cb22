package io.junction.amqp;

import org.apache.qpid.proton.amqp.Symbol;

/** A message that cannot be stored: the AMQP error condition and why (sent back in a rejected outcome). */
final class MalformedMessageException extends Exception {
    private static final long serialVersionUID = 1L;
    private final Symbol condition;

    MalformedMessageException(final Symbol condition, final String description) {
        super(description, null, false, false);
        this.condition = condition;
    }

    Symbol condition() {
        return condition;
    }
}
