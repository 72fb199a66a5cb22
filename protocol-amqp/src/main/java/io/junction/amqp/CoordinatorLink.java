package io.junction.amqp;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionException;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transaction.Declare;
import org.apache.qpid.proton.amqp.transaction.Declared;
import org.apache.qpid.proton.amqp.transaction.Discharge;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.message.Message;

/**
 * The transaction coordinator (a link whose target is a {@code Coordinator}): {@code declare} starts a
 * {@link LocalTransaction} and answers {@code declared} with its id; {@code discharge} commits it (accepted once the
 * sends are stored and the acks applied, else rejected with {@code amqp:transaction:rollback}) or rolls it back.
 * Transactions live in their connection: when it ends, those still open roll back. Several transactions per session
 * are allowed.
 */
final class CoordinatorLink implements LinkHandler {
    private static final int CREDIT = 100;

    private final Endpoints endpoints;
    private final Receiver receiver;
    private boolean ended;

    CoordinatorLink(final Endpoints endpoints, final Receiver receiver) {
        this.endpoints = endpoints;
        this.receiver = receiver;
    }

    void start() {
        receiver.flow(CREDIT);
    }

    @Override
    public void onDelivery(final Delivery d) {
        if (d.isPartial() || ended) {
            return;
        }
        final int size = d.pending();
        if (size > 65536) {
            receiver.advance();
            answer(d, rejected(AmqpErrors.DECODE_ERROR, "coordinator message too large"));
            return;
        }
        final byte[] bytes = new byte[size];
        receiver.recv(bytes, 0, size);
        receiver.advance();
        final Object body;
        try {
            final Message m = Proton.message();
            m.decode(bytes, 0, bytes.length);
            body = m.getBody() instanceof AmqpValue v ? v.getValue() : null;
        } catch (RuntimeException e) {
            answer(d, rejected(AmqpErrors.DECODE_ERROR, "malformed coordinator message"));
            return;
        }
        if (body instanceof Declare) {
            final Binary id = new Binary(ByteBuffer.allocate(8).putLong(endpoints.broker().nextId()).array());
            endpoints.transactions().put(id, new LocalTransaction(id, endpoints.broker().messaging(),
                    endpoints.broker().settings().maxTransactionBytes()));
            final Declared declared = new Declared();
            declared.setTxnId(id);
            answer(d, declared);
        } else if (body instanceof Discharge discharge) {
            final LocalTransaction txn = endpoints.transactions().remove(discharge.getTxnId());
            if (txn == null) {
                answer(d, rejected(AmqpErrors.TRANSACTION_UNKNOWN, "unknown transaction"));
            } else if (Boolean.TRUE.equals(discharge.getFail())) {
                txn.rollback();
                answer(d, Accepted.getInstance());
            } else {
                txn.commit().whenCompleteAsync((r, e) -> {
                    if (!ended) {
                        final Throwable cause = e instanceof CompletionException && e.getCause() != null
                                ? e.getCause() : e;
                        answer(d, e == null ? Accepted.getInstance()
                                : cause instanceof LocalTransaction.RefusedSend refused
                                ? rejected(refused.condition(), refused.getMessage())
                                : rejected(AmqpErrors.TRANSACTION_ROLLBACK, "commit failed: " + e.getMessage()));
                        endpoints.connection().requestFlush();
                    }
                }, endpoints.connection().executor());
            }
        } else {
            answer(d, rejected(AmqpErrors.DECODE_ERROR, "neither declare nor discharge"));
        }
    }

    private void answer(final Delivery d, final DeliveryState state) {
        d.disposition(state);
        d.settle();
        if (receiver.getCredit() < CREDIT / 2) {
            receiver.flow(CREDIT - receiver.getCredit());
        }
    }

    private static Rejected rejected(final Symbol condition, final String description) {
        final Rejected r = new Rejected();
        r.setError(AmqpErrors.of(condition, description));
        return r;
    }

    @Override
    public void onEnd(final boolean closed) {
        ended = true;
    }
}
