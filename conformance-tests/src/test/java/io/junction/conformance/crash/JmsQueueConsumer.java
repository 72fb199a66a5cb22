package io.junction.conformance.crash;

import io.junction.conformance.support.BrokerProcess;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.qpid.jms.JmsConnectionFactory;

/**
 * A Qpid JMS consumer of a queue (the queue's one shared consumer group): records each message in the ledger, then
 * acknowledges it (CLIENT_ACKNOWLEDGE), so a crash between the two gives a duplicate, never a loss. The same group
 * is read during the load rounds and by the final drain, which shows that deliveries resume after each crash.
 */
final class JmsQueueConsumer implements AutoCloseable {
    private final Connection connection;
    private final MessageConsumer consumer;
    private final Ledger ledger;
    private final String name;
    private final AtomicInteger deliveries = new AtomicInteger();

    private JmsQueueConsumer(final Connection connection, final MessageConsumer consumer, final Ledger ledger,
                             final String name) {
        this.connection = connection;
        this.consumer = consumer;
        this.ledger = ledger;
        this.name = name;
    }

    /** A started consumer; a small prefetch keeps what a crash leaves in flight small. */
    static JmsQueueConsumer open(final BrokerProcess broker, final String queue, final Ledger ledger,
                                 final String name) throws JMSException {
        final Connection connection = new JmsConnectionFactory(CrashBroker.amqpUri(broker)
                + "?jms.prefetchPolicy.all=20&jms.closeTimeout=2000&jms.connectTimeout=10000").createConnection();
        try {
            final Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            connection.start();
            return new JmsQueueConsumer(connection, consumer, ledger, name);
        } catch (final JMSException | RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    /** Consumes until {@code stop} is set or the connection fails (the broker was killed). */
    void runUntil(final AtomicBoolean stop) {
        try {
            while (!stop.get()) {
                receiveOne(200);
            }
        } catch (final JMSException e) {
            // the broker died under the consumer: what was not acknowledged comes back after the restart
        }
    }

    /**
     * Consumes until every acknowledged message of {@code stream} has arrived and the queue then stays empty for a
     * receive; fails when the deadline passes first.
     */
    void drain(final String stream, final Duration deadline) throws JMSException {
        final long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            final boolean got = receiveOne(1000);
            if (!got && ledger.allAcknowledgedDelivered(stream)) {
                return;
            }
        }
        throw new AssertionError("JMS drain of " + stream + ": " + ledger.missing(stream)
                + " acknowledged messages still missing after " + deadline);
    }

    private boolean receiveOne(final long timeoutMillis) throws JMSException {
        final Message m = consumer.receive(timeoutMillis);
        if (m == null) {
            return false;
        }
        ledger.delivered(m.getBody(byte[].class), m.getStringProperty(Senders.JMS_ID_PROPERTY), name);
        deliveries.incrementAndGet();
        m.acknowledge();
        return true;
    }

    int deliveries() {
        return deliveries.get();
    }

    @Override
    public void close() {
        closeQuietly(connection);
    }

    /** Closes a connection whose broker may be dead; the errors that causes are expected. */
    static void closeQuietly(final Connection connection) {
        try {
            connection.close();
        } catch (final JMSException | RuntimeException e) {
            // the broker is gone
        }
    }
}
