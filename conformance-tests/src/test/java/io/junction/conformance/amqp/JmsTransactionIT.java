package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Local transactions through the transaction coordinator (sends and acknowledgements commit or roll back together)
 * and temporary destinations (dynamic nodes) serving JMSReplyTo request-reply.
 */
@WithBroker
class JmsTransactionIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldPublishTransactedSendsOnlyOnCommit() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            final Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = tx.createQueue("tx-sends");
            final MessageProducer producer = tx.createProducer(queue);
            final MessageConsumer consumer = plain.createConsumer(queue);
            producer.send(tx.createTextMessage("rolled back"));
            tx.rollback();
            producer.send(tx.createTextMessage("a"));
            producer.send(tx.createTextMessage("b"));
            assertThat(consumer.receive(500)).as("nothing before the commit").isNull();
            tx.commit();
            assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("a");
            assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("b");
            assertThat(consumer.receive(300)).isNull();
        }
    }

    @Test
    void shouldRedeliverTransactedReceivesOnRollbackAndConsumeThemOnCommit() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Queue queue = plain.createQueue("tx-acks");
            final MessageProducer producer = plain.createProducer(queue);
            producer.send(plain.createTextMessage("x"));
            final Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            final MessageConsumer consumer = tx.createConsumer(queue);
            final Message first = consumer.receive(10_000);
            assertThat(((TextMessage) first).getText()).isEqualTo("x");
            tx.rollback();
            final Message again = consumer.receive(10_000);
            assertThat(again).isNotNull();
            assertThat(((TextMessage) again).getText()).isEqualTo("x");
            assertThat(again.getJMSRedelivered()).isTrue();
            tx.commit();
            consumer.close();
            final MessageConsumer after = plain.createConsumer(queue);
            assertThat(after.receive(500)).as("acknowledged by the commit").isNull();
        }
    }

    @Test
    void shouldMoveAMessageAtomicallyFromOneQueueToAnother() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            plain.createProducer(plain.createQueue("tx-in")).send(plain.createTextMessage("payload"));
            final Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            final MessageConsumer in = tx.createConsumer(tx.createQueue("tx-in"));
            final MessageProducer out = tx.createProducer(tx.createQueue("tx-out"));
            final Message m = in.receive(10_000);
            out.send(tx.createTextMessage(((TextMessage) m).getText() + " moved"));
            tx.commit();
            final Message moved = plain.createConsumer(plain.createQueue("tx-out")).receive(10_000);
            assertThat(((TextMessage) moved).getText()).isEqualTo("payload moved");
            in.close();
            assertThat(plain.createConsumer(plain.createQueue("tx-in")).receive(500)).isNull();
        }
    }

    @Test
    void shouldServeRequestReplyThroughATemporaryQueue() throws Exception {
        try (Connection server = Jms.connect(broker); Connection client = Jms.connect(broker)) {
            final Session ss = server.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer requests = ss.createConsumer(ss.createQueue("service"));
            final MessageProducer replies = ss.createProducer(null);
            requests.setMessageListener(request -> {
                try {
                    final TextMessage reply = ss.createTextMessage("re: " + ((TextMessage) request).getText());
                    reply.setJMSCorrelationID(request.getJMSMessageID());
                    replies.send(request.getJMSReplyTo(), reply);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            final Session cs = client.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final TemporaryQueue replyTo = cs.createTemporaryQueue();
            final MessageConsumer replyConsumer = cs.createConsumer(replyTo);
            final TextMessage request = cs.createTextMessage("ping");
            request.setJMSReplyTo(replyTo);
            cs.createProducer(cs.createQueue("service")).send(request);
            final Message reply = replyConsumer.receive(10_000);
            assertThat(reply).isNotNull();
            assertThat(((TextMessage) reply).getText()).isEqualTo("re: ping");
            assertThat(reply.getJMSCorrelationID()).isEqualTo(request.getJMSMessageID());
            replyConsumer.close();
            replyTo.delete();
        }
    }

    @Test
    void shouldDeliverToEverySubscriberOfATemporaryTopic() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final TemporaryTopic topic = session.createTemporaryTopic();
            final MessageConsumer a = session.createConsumer(topic);
            final MessageConsumer b = session.createConsumer(topic);
            session.createProducer(topic).send(session.createTextMessage("to all"));
            assertThat(((TextMessage) a.receive(10_000)).getText()).isEqualTo("to all");
            assertThat(((TextMessage) b.receive(10_000)).getText()).isEqualTo("to all");
        }
    }
}
