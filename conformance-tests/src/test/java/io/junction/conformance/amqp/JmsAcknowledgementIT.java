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
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * What a queue consumer received under AUTO_ACKNOWLEDGE is consumed: closing the consumer, its session or its
 * connection right after the last receive settles every acknowledgement the client sent before anything the consumer
 * held is handed out again, so the next consumer gets exactly the rest, in order, once, whatever its selector (a
 * queue's consumers share its messages: what one consumer took is gone for the others). Under CLIENT_ACKNOWLEDGE the
 * acknowledged messages stay consumed and the unacknowledged ones come back.
 */
@WithBroker
class JmsAcknowledgementIT {
    private static final int SENT = 20;
    private static final int RECEIVED = 8;

    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    /** How the first consumer goes away after its receives. */
    private enum Close { CONSUMER, SESSION, CONNECTION }

    @RepeatedTest(3)
    void shouldNotRedeliverWhatAClosedConsumerReceived() throws Exception {
        receiveSomeThenTheRest("auto-consumer", null, Close.CONSUMER);
    }

    @RepeatedTest(3)
    void shouldNotRedeliverWhatAClosedSelectorConsumerReceived() throws Exception {
        receiveSomeThenTheRest("auto-selector", "kind = 'wanted'", Close.CONSUMER);
    }

    @RepeatedTest(3)
    void shouldNotRedeliverWhatAConsumerOfAClosedSessionReceived() throws Exception {
        receiveSomeThenTheRest("auto-session", null, Close.SESSION);
    }

    @RepeatedTest(3)
    void shouldNotRedeliverWhatAConsumerOfAClosedConnectionReceived() throws Exception {
        receiveSomeThenTheRest("auto-connection", null, Close.CONNECTION);
    }

    @Test
    void shouldNotRedeliverWhatASelectorConsumerOfAClosedConnectionReceived() throws Exception {
        receiveSomeThenTheRest("auto-selector-connection", "kind = 'wanted'", Close.CONNECTION);
    }

    /**
     * Sends {@value #SENT} messages (with a selector: each followed by one the selector skips), receives
     * {@value #RECEIVED} on an AUTO_ACKNOWLEDGE consumer, closes it as told, then a new consumer (same selector) must
     * get exactly the other ones, in order, none redelivered.
     */
    private static void receiveSomeThenTheRest(final String queueName, final String selector, final Close close)
            throws Exception {
        final String name = queueName + "-" + System.nanoTime();
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = s.createProducer(s.createQueue(name));
            for (int i = 0; i < SENT; i++) {
                final TextMessage m = s.createTextMessage("m" + i);
                m.setStringProperty("kind", "wanted");
                producer.send(m);
                if (selector != null) {
                    final TextMessage other = s.createTextMessage("other" + i);
                    other.setStringProperty("kind", "other");
                    producer.send(other);
                }
            }
        }
        final Connection first = Jms.connect(broker);
        final Session session = first.createSession(false, Session.AUTO_ACKNOWLEDGE);
        final MessageConsumer consumer = selector == null ? session.createConsumer(session.createQueue(name))
                : session.createConsumer(session.createQueue(name), selector);
        assertThat(receive(consumer, RECEIVED)).isEqualTo(texts(0, RECEIVED));
        switch (close) {
            case CONSUMER -> consumer.close();
            case SESSION -> session.close();
            default -> first.close();
        }
        try (Connection second = close == Close.CONNECTION ? Jms.connect(broker) : null) {
            final Connection c = second != null ? second : first;
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer next = selector == null ? s.createConsumer(s.createQueue(name))
                    : s.createConsumer(s.createQueue(name), selector);
            final List<Message> rest = receiveMessages(next, SENT - RECEIVED);
            assertThat(textsOf(rest)).as("the messages the first consumer did not receive, in order")
                    .isEqualTo(texts(RECEIVED, SENT));
            assertThat(next.receive(500)).as("nothing more: what was received is consumed").isNull();
        } finally {
            first.close();
        }
    }

    @Test
    void shouldNotGiveWhatASelectorConsumerReceivedToAConsumerWithoutOne() throws Exception {
        final String name = "selector-then-plain";
        final List<String> sent = sendWantedAndOther(name, 6);
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer selective = s.createConsumer(s.createQueue(name), "kind = 'wanted'");
            assertThat(receive(selective, 3)).containsExactly("m0", "m1", "m2");
            selective.close();
            final MessageConsumer plain = s.createConsumer(s.createQueue(name));
            final List<String> expected = new ArrayList<>(sent);
            expected.removeAll(List.of("m0", "m1", "m2"));
            assertThat(receive(plain, expected.size())).as("the queue without what the selector took, in order")
                    .isEqualTo(expected);
            assertThat(plain.receive(500)).isNull();
        }
    }

    @Test
    void shouldNotGiveWhatAConsumerReceivedToASelectorConsumerSeenBefore() throws Exception {
        final String name = "plain-then-selector";
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            // a selector consumer of the queue existed before the messages were sent
            final MessageConsumer early = s.createConsumer(s.createQueue(name), "kind = 'wanted'");
            assertThat(early.receive(300)).isNull();
            early.close();
            sendWantedAndOther(name, 6);
            final MessageConsumer plain = s.createConsumer(s.createQueue(name));
            assertThat(receive(plain, 3)).containsExactly("m0", "other0", "m1");
            plain.close();
            final MessageConsumer selective = s.createConsumer(s.createQueue(name), "kind = 'wanted'");
            assertThat(receive(selective, 4)).containsExactly("m2", "m3", "m4", "m5");
            assertThat(selective.receive(500)).isNull();
        }
    }

    /** Sends m0, other0, m1, other1, ... ({@code kind} wanted / other); returns the texts in order. */
    private static List<String> sendWantedAndOther(final String queueName, final int pairs) throws Exception {
        final List<String> sent = new ArrayList<>();
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = s.createProducer(s.createQueue(queueName));
            for (int i = 0; i < pairs; i++) {
                for (String kind : List.of("wanted", "other")) {
                    final String text = (kind.equals("wanted") ? "m" : "other") + i;
                    final TextMessage m = s.createTextMessage(text);
                    m.setStringProperty("kind", kind);
                    producer.send(m);
                    sent.add(text);
                }
            }
        }
        return sent;
    }

    @Test
    void shouldRedeliverOnlyTheUnacknowledgedUnderClientAcknowledge() throws Exception {
        final String name = "client-ack";
        try (Connection c = Jms.connect(broker)) {
            final Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final Queue queue = s.createQueue(name);
            final MessageProducer producer = s.createProducer(queue);
            for (int i = 0; i < 10; i++) {
                producer.send(s.createTextMessage("m" + i));
            }
            final MessageConsumer consumer = s.createConsumer(queue);
            final List<Message> firstFive = receiveMessages(consumer, 5);
            firstFive.get(4).acknowledge(); // acknowledges every message the session consumed: m0..m4
            final List<Message> nextThree = receiveMessages(consumer, 3); // m5..m7, never acknowledged
            assertThat(textsOf(nextThree)).containsExactly("m5", "m6", "m7");
            consumer.close();
            s.close();

            final Session again = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            final MessageConsumer next = again.createConsumer(again.createQueue(name));
            final List<Message> rest = receiveMessages(next, 5);
            assertThat(textsOf(rest)).as("the unacknowledged ones and the ones never delivered, in order")
                    .containsExactly("m5", "m6", "m7", "m8", "m9");
            for (Message m : rest) {
                if (List.of("m5", "m6", "m7").contains(((TextMessage) m).getText())) {
                    assertThat(m.getJMSRedelivered()).as("redelivered flag of %s", ((TextMessage) m).getText())
                            .isTrue();
                }
            }
            rest.get(rest.size() - 1).acknowledge();
            assertThat(next.receive(500)).isNull();
        }
    }

    private static List<String> receive(final MessageConsumer consumer, final int count) throws JMSException {
        return textsOf(receiveMessages(consumer, count));
    }

    private static List<Message> receiveMessages(final MessageConsumer consumer, final int count)
            throws JMSException {
        final List<Message> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final Message m = consumer.receive(RunningBroker.DEADLINE.toMillis());
            assertThat(m).as("message %d of %d (got %s)", i, count, textsOf(out)).isNotNull();
            out.add(m);
        }
        return out;
    }

    private static List<String> textsOf(final List<Message> messages) throws JMSException {
        final List<String> out = new ArrayList<>();
        for (Message m : messages) {
            out.add(((TextMessage) m).getText());
        }
        return out;
    }

    private static List<String> texts(final int from, final int to) {
        return IntStream.range(from, to).mapToObj(i -> "m" + i).toList();
    }
}
