package io.junction.amqp;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.TopicConfig;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;

/**
 * A link on which the client sends (the broker's receiver): each complete transfer is decoded, mapped and stored with
 * {@code Messaging.send}; an unsettled transfer is accepted once the core has stored it (after its fsync in SYNC
 * mode) or rejected with the reason. A transfer inside a transaction is held by the transaction until it commits.
 *
 * <p>Flow control: the link gets {@code amqp.link-credit}; credit is topped up as stores complete, and only while
 * less than {@value #MAX_INFLIGHT_BYTES} bytes are being stored, so a fast producer cannot queue unbounded memory.
 * Every message of one link goes to the same queue of its topic (unless it has a group id), so one producer's
 * messages stay in order. A link without a target address is an anonymous relay: each message's {@code to} names its
 * topic.
 *
 * <p>Every transfer is authorized under the rules in force when it arrives ({@link LinkAuthorization}), not only the
 * attach: a user whose PUB on a topic was taken away has the next transfer rejected with
 * {@code amqp:unauthorized-access}, nothing of it stored, and the link stays open for what is still allowed.
 */
final class ProducerLink implements LinkHandler {
    static final long MAX_INFLIGHT_BYTES = 16L * 1024 * 1024;

    private final Endpoints endpoints;
    private final Receiver receiver;
    private final Messaging messaging;
    /** The core topic, or null on an anonymous relay. */
    private final String topic;
    private final int credit;
    private final int queueSeed;
    private final long maxMessageSize;
    private int inflight;
    private long inflightBytes;
    private boolean ended;
    /** A link to a temporary topic its own connection made (a dynamic target): no rule is asked, as at attach. */
    private final boolean ownTemporary;

    /** What to do when the link ends (a temporary destination goes), or null. */
    private final Consumer<Boolean> onEnd;

    ProducerLink(final Endpoints endpoints, final Receiver receiver, final String topic,
                 final Consumer<Boolean> onEnd) {
        this.onEnd = onEnd;
        this.endpoints = endpoints;
        this.receiver = receiver;
        this.messaging = endpoints.broker().messaging();
        this.topic = topic;
        this.credit = endpoints.broker().settings().linkCredit();
        this.queueSeed = (endpoints.containerId() + '/' + receiver.getName()).hashCode();
        this.maxMessageSize = endpoints.broker().settings().maxMessageSize();
        this.ownTemporary = topic != null && endpoints.isTemporaryTopic(topic);
    }

    void start() {
        receiver.flow(credit);
    }

    @Override
    public void onDelivery(final Delivery d) {
        if (ended) {
            return;
        }
        if (d.isAborted()) {
            receiver.advance();
            d.settle();
            topUp();
            return;
        }
        if (d.isPartial()) {
            if (d.pending() > maxMessageSize) {
                endpoints.endLink(receiver, AmqpErrors.of(AmqpErrors.MESSAGE_SIZE_EXCEEDED,
                        "message larger than " + maxMessageSize + " bytes"));
            }
            return;
        }
        final int size = d.pending();
        if (size > maxMessageSize) {
            receiver.advance();
            reject(d, AmqpErrors.MESSAGE_SIZE_EXCEEDED, "message larger than " + maxMessageSize + " bytes");
            return;
        }
        final byte[] bytes = new byte[size];
        receiver.recv(bytes, 0, size);
        receiver.advance();
        final long now = System.currentTimeMillis();
        final AmqpMessageMapping.Inbound in;
        try {
            in = endpoints.mapping().toCore(bytes, size, now);
        } catch (MalformedMessageException e) {
            reject(d, e.condition(), e.getMessage());
            return;
        }
        String core = topic;
        if (core == null) {
            if (in.to() == null) {
                reject(d, AmqpErrors.NOT_FOUND, "no address: the link is an anonymous relay and the message has no to");
                return;
            }
            core = endpoints.core(in.to());
            if (core == null) {
                reject(d, AmqpErrors.INVALID_FIELD, "address too long");
                return;
            }
        }
        if (!ownTemporary && !endpoints.authorization().mayPublish(core)) {
            // asked for every transfer: a change of the rules applies to the very next one
            reject(d, AmqpErrors.UNAUTHORIZED, "not allowed to send to "
                    + (topic == null ? in.to() : receiver.getTarget().getAddress()));
            return;
        }
        final Message message = in.toMessage(core, queueFor(core, in), now);
        final var admission = endpoints.broker().accessControl().admitPublish(endpoints.connection().principal(), 1,
                message.body().length);
        if (!admission.admitted()) {
            reject(d, AmqpErrors.RESOURCE_LIMIT, "publish quota exceeded; retry in " + admission.retryAfterMillis()
                    + " ms");
            return;
        }
        final DeliveryState remote = d.getRemoteState();
        if (remote instanceof TransactionalState ts) {
            final LocalTransaction txn = endpoints.transactions().get(ts.getTxnId());
            if (txn == null) {
                reject(d, AmqpErrors.TRANSACTION_UNKNOWN, "unknown transaction");
                return;
            }
            if (!txn.enlistSend(message, size)) {
                reject(d, AmqpErrors.RESOURCE_LIMIT, "transaction holds too many bytes");
                return;
            }
            final TransactionalState accepted = new TransactionalState();
            accepted.setTxnId(ts.getTxnId());
            accepted.setOutcome(Accepted.getInstance());
            d.disposition(accepted);
            d.settle();
            return;
        }
        final boolean settled = d.remotelySettled();
        if (settled) {
            d.settle(); // at most once: nothing to answer
        }
        inflight++;
        inflightBytes += size;
        messaging.send(message).whenCompleteAsync((r, e) -> stored(d, settled, size, e),
                endpoints.connection().executor());
    }

    private int queueFor(final String core, final AmqpMessageMapping.Inbound in) {
        if (in.properties().containsKey(MessageProperties.MESSAGE_GROUP)) {
            return Message.ANY_QUEUE; // the core keeps a group in one queue
        }
        final Optional<TopicConfig> route = messaging.route(core);
        return route.map(t -> Math.floorMod(queueSeed, t.queueCount())).orElse(Message.ANY_QUEUE);
    }

    private void stored(final Delivery d, final boolean settled, final int size, final Throwable error) {
        inflight--;
        inflightBytes -= size;
        if (ended) {
            return;
        }
        if (!settled) {
            if (error == null) {
                d.disposition(Accepted.getInstance());
                d.settle();
            } else {
                final Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                reject(d, conditionOf(cause), String.valueOf(cause.getMessage()));
                return;
            }
        }
        topUp();
        endpoints.connection().requestFlush();
    }

    private void reject(final Delivery d, final Symbol condition, final String description) {
        if (d.getRemoteState() instanceof TransactionalState ts) {
            final LocalTransaction txn = endpoints.transactions().get(ts.getTxnId());
            if (txn != null) {
                // Qpid JMS does not wait for a transacted send's outcome: the commit is where the client learns
                txn.refused(condition, description);
            }
        }
        if (!d.remotelySettled()) {
            final Rejected rejected = new Rejected();
            rejected.setError(AmqpErrors.of(condition, description));
            d.disposition(rejected);
        }
        d.settle();
        topUp();
        endpoints.connection().requestFlush();
    }

    /** Gives the client credit back once at least half of it is used up and stored. */
    private void topUp() {
        if (ended || inflightBytes >= MAX_INFLIGHT_BYTES) {
            return;
        }
        final int want = credit - receiver.getCredit() - inflight;
        if (want > 0 && (want >= credit / 2 || receiver.getCredit() + inflight == 0)) {
            receiver.flow(want);
        }
    }

    static Symbol conditionOf(final Throwable cause) {
        if (cause instanceof StoreException se) {
            final StoreError error = se.error();
            return switch (error) {
                case TOPIC_NOT_FOUND, QUEUE_NOT_FOUND, GROUP_NOT_FOUND -> AmqpErrors.NOT_FOUND;
                case MESSAGE_TOO_LARGE -> AmqpErrors.MESSAGE_SIZE_EXCEEDED;
                case ILLEGAL_MESSAGE, ILLEGAL_ARGUMENT, ILLEGAL_FILTER -> AmqpErrors.INVALID_FIELD;
                case PERMISSION_DENIED -> AmqpErrors.UNAUTHORIZED;
                case DISK_FULL, BUSY -> AmqpErrors.RESOURCE_LIMIT;
                default -> AmqpErrors.INTERNAL;
            };
        }
        return AmqpErrors.INTERNAL;
    }

    @Override
    public void onEnd(final boolean closed) {
        ended = true;
        if (onEnd != null) {
            onEnd.accept(closed);
        }
    }
}
