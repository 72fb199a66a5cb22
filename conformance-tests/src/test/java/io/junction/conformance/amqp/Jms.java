package io.junction.conformance.amqp;

import io.junction.conformance.support.RunningBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import org.apache.qpid.jms.JmsConnectionFactory;

/** Qpid JMS connections to a broker's AMQP listener. */
final class Jms {
    private Jms() {
    }

    static JmsConnectionFactory factory(final RunningBroker broker) {
        return factory(broker, "");
    }

    /** A factory whose URI carries extra options, e.g. {@code jms.prefetchPolicy.all=0}. */
    static JmsConnectionFactory factory(final RunningBroker broker, final String options) {
        return new JmsConnectionFactory(broker.amqpUri() + (options.isEmpty() ? "" : "?" + options));
    }

    /** A started connection. */
    static Connection connect(final RunningBroker broker) throws JMSException {
        final Connection c = factory(broker).createConnection();
        c.start();
        return c;
    }

    /** A started connection with a client id (durable subscriptions). */
    static Connection connect(final RunningBroker broker, final String clientId) throws JMSException {
        final Connection c = factory(broker).createConnection();
        c.setClientID(clientId);
        c.start();
        return c;
    }
}
