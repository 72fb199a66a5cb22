package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Settlement modes and outcomes: presettled (at-most-once) producers and consumers; rejected goes to the group's
 * dead-letter topic at once; released comes back at once; modified (delivery failed) comes back with a higher
 * delivery count until {@code amqp.max-delivery-attempts}, then goes to the dead-letter topic. Qpid JMS picks the
 * outcome of an acknowledgement with the {@code JMS_AMQP_ACK_TYPE} property.
 */
@WithBroker(settings = {"amqp.max-delivery-attempts=3"})
class JmsDispositionIT {
    private static final int REJECTED = 2;
    private static final int RELEASED = 3;
    private static final int MODIFIED_FAILED = 4;

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldSendAndReceivePresettled() throws Exception {
        try (Connection c = Jms.factory(broker, "jms.presettlePolicy.presettleAll=true").createConnection()) {
            c.start();
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue q = s.createQueue("presettled");
            final var producer = s.createProducer(q);
            for (int i = 0; i < 10; i++) {
                producer.send(s.createTextMessage("p" + i));
            }
            final MessageConsumer consumer = s.createConsumer(q);
            for (int i = 0; i < 10; i++) {
                assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("p" + i);
            }
            consumer.close();
            assertThat(s.createConsumer(q).receive(500)).as("presettled deliveries are consumed").isNull();
        }
    }

    @Test
    void shouldMoveARejectedMessageToTheDeadLetterTopic() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue q = s.createQueue("rejects");
            s.createProducer(q).send(s.createTextMessage("bad"));
            final MessageConsumer consumer = s.createConsumer(q);
            final Message m = consumer.receive(10_000);
            m.setIntProperty("JMS_AMQP_ACK_TYPE", REJECTED);
            m.acknowledge();
            assertThat(consumer.receive(500)).as("not redelivered").isNull();
            final Message dead = s.createConsumer(s.createQueue("%DLQ%rejects")).receive(10_000);
            assertThat(((TextMessage) dead).getText()).isEqualTo("bad");
            dead.acknowledge();
        }
    }

    @Test
    void shouldRedeliverAReleasedMessageAtOnce() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue q = s.createQueue("releases");
            s.createProducer(q).send(s.createTextMessage("again"));
            final MessageConsumer consumer = s.createConsumer(q);
            final Message m = consumer.receive(10_000);
            m.setIntProperty("JMS_AMQP_ACK_TYPE", RELEASED);
            m.acknowledge();
            final Message back = consumer.receive(10_000);
            assertThat(((TextMessage) back).getText()).isEqualTo("again");
            // AMQP 1.0 3.4.4: a released message is unchanged at the node, its delivery not counted
            assertThat(back.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
            assertThat(back.getJMSRedelivered()).isFalse();
            back.acknowledge();
        }
    }

    @Test
    void shouldDeadLetterAfterTheLastFailedDelivery() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue q = s.createQueue("poison");
            s.createProducer(q).send(s.createTextMessage("poison"));
            final MessageConsumer consumer = s.createConsumer(q);
            for (int attempt = 1; attempt <= 3; attempt++) {
                final Message m = consumer.receive(10_000);
                assertThat(m).as("delivery %d", attempt).isNotNull();
                assertThat(m.getIntProperty("JMSXDeliveryCount")).isEqualTo(attempt);
                m.setIntProperty("JMS_AMQP_ACK_TYPE", MODIFIED_FAILED);
                m.acknowledge();
            }
            assertThat(consumer.receive(1_000)).as("no fourth delivery").isNull();
            final Message dead = s.createConsumer(s.createQueue("%DLQ%poison")).receive(10_000);
            assertThat(((TextMessage) dead).getText()).isEqualTo("poison");
            dead.acknowledge();
        }
    }
}
