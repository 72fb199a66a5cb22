package io.junction.amqp;

import io.junction.core.Messaging;
import io.junction.core.Receipt;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Outcome;

/**
 * One AMQP local transaction (declared on a coordinator link): the messages sent and the outcomes given under it,
 * held in memory until the discharge. Commit stores the messages (all handed to the core at once, in the order they
 * were sent) and, once they are stored, applies the outcomes (acks); rollback drops the messages and makes every
 * message whose outcome it held visible again, so it is redelivered as JMS requires.
 *
 * <p>A send of the transaction the broker refused (not authorized, too large, over quota) makes it roll back at
 * commit: a client that does not wait for each transacted send's outcome (Qpid JMS) must not see a commit succeed
 * without it.
 *
 * <p>The commit is not atomic across a broker crash: a crash in the middle can leave some of the sends stored, or
 * the sends stored and the acks not (those messages are then delivered again).
 */
final class LocalTransaction {
    private final Binary id;
    private final Messaging messaging;
    private final long maxBytes;
    private final List<Message> sends = new ArrayList<>();
    private final List<Enlisted> outcomes = new ArrayList<>();
    private long bytes;
    /** Why a send of the transaction was refused, or null. */
    private RefusedSend refusal;

    /**
     * A commit failed because a send of the transaction was refused: the discharge is rejected with the send's own
     * condition, which also tells the client why (Qpid JMS 2.10 reports it as a TransactionRolledBackException, but
     * a discharge rejected with {@code amqp:transaction:rollback} as a transaction "in doubt").
     */
    static final class RefusedSend extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Symbol condition;

        RefusedSend(final Symbol condition, final String why) {
            super("a send of the transaction was refused (" + why + "); the transaction rolled back", null, false,
                    false);
            this.condition = condition;
        }

        Symbol condition() {
            return condition;
        }
    }

    private record Enlisted(ConsumerLink link, Receipt receipt, Outcome outcome) {
    }

    LocalTransaction(final Binary id, final Messaging messaging, final long maxBytes) {
        this.id = id;
        this.messaging = messaging;
        this.maxBytes = maxBytes;
    }

    Binary id() {
        return id;
    }

    /** Holds a send; false when the transaction would hold more than its byte limit. */
    boolean enlistSend(final Message message, final int size) {
        if (bytes + size > maxBytes) {
            return false;
        }
        bytes += size;
        sends.add(message);
        return true;
    }

    /** A send of the transaction was refused with {@code condition}: the transaction can only roll back. */
    void refused(final Symbol condition, final String why) {
        if (refusal == null) {
            refusal = new RefusedSend(condition, why);
        }
    }

    /** Holds the outcome a consumer gave a delivered message (null: accepted). */
    void enlistOutcome(final ConsumerLink link, final Receipt receipt, final Outcome outcome) {
        outcomes.add(new Enlisted(link, receipt, outcome == null ? Accepted.getInstance() : outcome));
    }

    /** Stores the sends and applies the outcomes; rolls back instead (and fails) when a send was refused. */
    CompletableFuture<Void> commit() {
        if (refusal != null) {
            rollback();
            return CompletableFuture.failedFuture(refusal);
        }
        final List<CompletableFuture<SendResult>> stored = new ArrayList<>(sends.size());
        for (Message m : sends) {
            stored.add(messaging.send(m));
        }
        sends.clear();
        return CompletableFuture.allOf(stored.toArray(CompletableFuture[]::new)).thenRun(() -> {
            for (Enlisted e : outcomes) {
                e.link().settle(e.receipt(), e.outcome());
            }
            outcomes.clear();
        });
    }

    void rollback() {
        sends.clear();
        for (Enlisted e : outcomes) {
            e.link().release(e.receipt());
        }
        outcomes.clear();
    }
}
