package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Queue browsers with Qpid JMS enumerate exactly what a consumer of the queue would get next, in order, without
 * taking anything: a browser with a selector lists only the messages it selects; browsing leaves every message and
 * its delivery count as it was (the later receive is not flagged redelivered); messages a consumer took are not
 * listed, and those it gave back are.
 */
@WithBroker
class JmsQueueBrowserIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldBrowseWhatTheSessionJustSentThenReceiveIt() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("browsed");
            final MessageProducer producer = session.createProducer(queue);
            producer.send(session.createTextMessage("first"));
            producer.send(session.createTextMessage("second"));
            assertThat(browse(session.createBrowser(queue))).containsExactly("first", "second");
            assertThat(browse(session.createBrowser(queue))).as("browsing again: nothing was taken")
                    .containsExactly("first", "second");
            final MessageConsumer consumer = session.createConsumer(queue);
            for (String expected : List.of("first", "second")) {
                final Message m = consumer.receive(RunningBroker.DEADLINE.toMillis());
                assertThat(m).as(expected).isNotNull();
                assertThat(((TextMessage) m).getText()).isEqualTo(expected);
                assertThat(m.getJMSRedelivered()).as("browsing is not a delivery").isFalse();
                assertThat(m.getIntProperty("JMSXDeliveryCount")).isEqualTo(1);
            }
            assertThat(consumer.receive(300)).isNull();
            consumer.close();
            assertThat(browse(session.createBrowser(queue))).as("consumed ones are gone").isEmpty();
        }
    }

    @Test
    void shouldBrowseOnlyWhatTheSelectorSelects() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = session.createQueue("browsed-selected");
            final MessageProducer producer = session.createProducer(queue);
            for (int i = 0; i < 10; i++) {
                final TextMessage m = session.createTextMessage("m" + i);
                m.setIntProperty("n", i);
                producer.send(m);
            }
            assertThat(browse(session.createBrowser(queue, "n >= 3 AND n < 7")))
                    .containsExactly("m3", "m4", "m5", "m6");
            assertThat(browse(session.createBrowser(queue, "n = 42"))).isEmpty();
            assertThat(browse(session.createBrowser(queue))).hasSize(10);
            final MessageConsumer consumer = session.createConsumer(queue);
            for (int i = 0; i < 10; i++) {
                final Message m = consumer.receive(RunningBroker.DEADLINE.toMillis());
                assertThat(((TextMessage) m).getText()).isEqualTo("m" + i);
                assertThat(m.getJMSRedelivered()).isFalse();
            }
            consumer.close();
        }
    }

    @Test
    void shouldListWhatAConsumerGaveBackButNotWhatItHolds() throws Exception {
        try (Connection c = Jms.factory(broker, "jms.prefetchPolicy.all=2").createConnection()) {
            c.start();
            final Session producerSession = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = producerSession.createQueue("browsed-held");
            final MessageProducer producer = producerSession.createProducer(queue);
            for (int i = 0; i < 6; i++) {
                producer.send(producerSession.createTextMessage("m" + i));
            }
            final Session held = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final MessageConsumer consumer = held.createConsumer(queue);
            final Message m0 = consumer.receive(RunningBroker.DEADLINE.toMillis());
            assertThat(((TextMessage) m0).getText()).isEqualTo("m0");
            m0.acknowledge();
            assertThat(((TextMessage) consumer.receive(RunningBroker.DEADLINE.toMillis())).getText())
                    .isEqualTo("m1");
            final Session browsing = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            // m0 is consumed; m1 and what the consumer prefetched after it are held by the consumer
            final List<String> whileHeld = browse(browsing.createBrowser(queue));
            assertThat(whileHeld).hasSizeGreaterThanOrEqualTo(2);
            assertThat(List.of("m2", "m3", "m4", "m5")).as("the rest of the queue, in order").endsWith(
                    whileHeld.toArray(String[]::new));
            held.close(); // m1 and what was prefetched go back to the queue
            assertThat(browse(browsing.createBrowser(queue))).containsExactly("m1", "m2", "m3", "m4", "m5");
        }
    }

    private static List<String> browse(final QueueBrowser browser) throws JMSException {
        final List<String> out = new ArrayList<>();
        final Enumeration<?> e = browser.getEnumeration();
        while (e.hasMoreElements()) {
            out.add(((TextMessage) e.nextElement()).getText());
        }
        browser.close();
        return out;
    }
}
