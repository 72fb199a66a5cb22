package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Queues with Qpid JMS: an address with the {@code queue} capability is one shared consumer group; competing
 * consumers split its messages; acknowledgement modes map onto dispositions; recover and failed deliveries come back
 * with JMSRedelivered and a growing JMSXDeliveryCount.
 */
@WithBroker
class JmsQueueIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldSendAndReceiveInOrder() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("orders");
            final MessageProducer producer = session.createProducer(queue);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 0; i < 20; i++) {
                producer.send(session.createTextMessage("order-" + i));
            }
            final MessageConsumer consumer = session.createConsumer(queue);
            for (int i = 0; i < 20; i++) {
                final Message m = consumer.receive(10_000);
                assertThat(m).as("message %d", i).isNotNull();
                assertThat(((TextMessage) m).getText()).isEqualTo("order-" + i);
                assertThat(m.getJMSRedelivered()).isFalse();
                assertThat(m.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
            }
            assertThat(consumer.receive(300)).isNull();
        }
    }

    @Test
    void shouldShareAQueueBetweenCompetingConsumers() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session s1 = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Session s2 = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = s1.createQueue("work");
            final MessageConsumer a = s1.createConsumer(queue);
            final MessageConsumer b = s2.createConsumer(queue);
            final MessageProducer producer = s1.createProducer(queue);
            for (int i = 0; i < 40; i++) {
                producer.send(s1.createTextMessage("job-" + i));
            }
            final Set<String> seen = new HashSet<>();
            final List<String> duplicates = new ArrayList<>();
            int fromA = 0;
            int fromB = 0;
            final long deadline = System.currentTimeMillis() + 20_000;
            while (seen.size() < 40 && System.currentTimeMillis() < deadline) {
                final Message ma = a.receive(50);
                if (ma != null) {
                    fromA++;
                    if (!seen.add(((TextMessage) ma).getText())) {
                        duplicates.add(((TextMessage) ma).getText());
                    }
                }
                final Message mb = b.receive(50);
                if (mb != null) {
                    fromB++;
                    if (!seen.add(((TextMessage) mb).getText())) {
                        duplicates.add(((TextMessage) mb).getText());
                    }
                }
            }
            assertThat(seen).hasSize(40);
            assertThat(duplicates).isEmpty();
            assertThat(fromA + fromB).isEqualTo(40);
        }
    }

    @Test
    void shouldRedeliverAfterRecoverWithDeliveryCount() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue queue = session.createQueue("recover");
            session.createProducer(queue).send(session.createTextMessage("again"));
            final MessageConsumer consumer = session.createConsumer(queue);
            final Message first = consumer.receive(10_000);
            assertThat(first).isNotNull();
            assertThat(first.getJMSRedelivered()).isFalse();
            session.recover();
            final Message second = consumer.receive(10_000);
            assertThat(second).isNotNull();
            assertThat(((TextMessage) second).getText()).isEqualTo("again");
            assertThat(second.getJMSRedelivered()).isTrue();
            assertThat(second.getIntProperty("JMSXDeliveryCount")).isEqualTo(2);
            second.acknowledge();
            assertThat(consumer.receive(500)).isNull();
        }
    }

    @Test
    void shouldGiveUnacknowledgedMessagesBackWhenTheConsumerCloses() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue queue = session.createQueue("unacked");
            session.createProducer(queue).send(session.createTextMessage("keep me"));
            final MessageConsumer consumer = session.createConsumer(queue);
            assertThat(consumer.receive(10_000)).isNotNull();
            consumer.close(); // not acknowledged
            session.close();
            final Session again = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Message m = again.createConsumer(again.createQueue("unacked")).receive(10_000);
            assertThat(m).isNotNull();
            assertThat(((TextMessage) m).getText()).isEqualTo("keep me");
        }
    }

    @Test
    void shouldReceiveWithoutPrefetchUsingDrain() throws Exception {
        try (Connection c = Jms.factory(broker, "jms.prefetchPolicy.all=0").createConnection()) {
            c.start();
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("pull");
            final MessageConsumer consumer = session.createConsumer(queue);
            assertThat(consumer.receiveNoWait()).isNull();
            session.createProducer(queue).send(session.createTextMessage("one"));
            final Message m = consumer.receive(10_000);
            assertThat(m).isNotNull();
            assertThat(((TextMessage) m).getText()).isEqualTo("one");
            assertThat(consumer.receive(200)).isNull();
        }
    }
}
