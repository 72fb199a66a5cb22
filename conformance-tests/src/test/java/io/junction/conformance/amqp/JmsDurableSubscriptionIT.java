package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Durable subscriptions with Qpid JMS coming and going: a durable consumer closed and made again on the same
 * connection and session attaches at once and gets what was published meanwhile, in order; the same from a new
 * connection with the same client id; unsubscribing an inactive subscription ends it (a later consumer of that name
 * starts fresh); a second consumer of an active unshared subscription, and unsubscribing an active one, fail with a
 * JMSException at once instead of hanging. Shared durable subscriptions come back the same way.
 */
@WithBroker
class JmsDurableSubscriptionIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldReattachOnTheSameSessionAndGetWhatWasPublishedMeanwhile() throws Exception {
        try (Connection c = Jms.connect(broker, "same-session-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("same-session");
            final MessageProducer producer = session.createProducer(topic);
            final MessageConsumer first = session.createDurableConsumer(topic, "sub");
            publish(session, producer, "a", 2);
            assertThat(receive(first, 2)).containsExactly("a0", "a1");
            first.close();
            publish(session, producer, "b", 3);
            final MessageConsumer again = session.createDurableConsumer(topic, "sub");
            assertThat(receive(again, 3)).containsExactly("b0", "b1", "b2");
            assertThat(again.receive(300)).isNull();
            again.close();
            // and a third time, on another session of the same connection
            publish(session, producer, "c", 3);
            final Session other = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer third = other.createDurableConsumer(other.createTopic("same-session"), "sub");
            assertThat(receive(third, 3)).containsExactly("c0", "c1", "c2");
            third.close();
            session.unsubscribe("sub");
        }
    }

    @Test
    void shouldReattachFromANewConnectionWithTheSameClientId() throws Exception {
        try (Connection c = Jms.connect(broker, "moving-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("moving");
            final MessageConsumer consumer = session.createDurableConsumer(topic, "sub");
            publish(session, session.createProducer(topic), "a", 2);
            assertThat(receive(consumer, 2)).containsExactly("a0", "a1");
        }
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            publish(session, session.createProducer(session.createTopic("moving")), "b", 3);
        }
        try (Connection c = Jms.connect(broker, "moving-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer consumer = session.createDurableConsumer(session.createTopic("moving"), "sub");
            assertThat(receive(consumer, 3)).containsExactly("b0", "b1", "b2");
            assertThat(consumer.receive(300)).isNull();
            consumer.close();
            session.unsubscribe("sub");
        }
    }

    @Test
    void shouldStartFreshAfterUnsubscribingAnInactiveSubscription() throws Exception {
        try (Connection c = Jms.connect(broker, "unsubscribing-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("unsubscribed");
            final MessageProducer producer = session.createProducer(topic);
            session.createDurableConsumer(topic, "sub").close();
            publish(session, producer, "kept", 2);
            session.unsubscribe("sub");
            publish(session, producer, "after", 1);
            final MessageConsumer fresh = session.createDurableConsumer(topic, "sub");
            assertThat(fresh.receive(500)).as("nothing published before the new subscription").isNull();
            publish(session, producer, "new", 1);
            assertThat(receive(fresh, 1)).containsExactly("new0");
            fresh.close();
            session.unsubscribe("sub");
            assertThatThrownBy(() -> session.unsubscribe("sub")).as("no such subscription any more")
                    .isInstanceOf(JMSException.class);
        }
    }

    @Test
    void shouldRefuseASecondConsumerOfASubscriptionActiveElsewhere() throws Exception {
        // Qpid JMS refuses a second consumer of the subscription on the connection that has one; the broker refuses
        // it from anywhere else (here: a second connection with the same client id).
        try (Connection c = Jms.connect(broker, "busy-client");
             Connection elsewhere = Jms.connect(broker, "busy-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("busy");
            final MessageConsumer active = session.createDurableConsumer(topic, "sub");
            final Session other = elsewhere.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final long before = System.currentTimeMillis();
            assertThatThrownBy(() -> other.createDurableConsumer(other.createTopic("busy"), "sub"))
                    .isInstanceOf(JMSException.class).hasMessageContaining("in use");
            assertThatThrownBy(() -> other.unsubscribe("sub")).isInstanceOf(JMSException.class)
                    .hasMessageContaining("in use");
            assertThat(System.currentTimeMillis() - before).as("refused at once, not after a time-out")
                    .isLessThan(RunningBroker.DEADLINE.toMillis() / 2);
            // the active consumer is unaffected, and once it is closed the other connection may take over
            publish(session, session.createProducer(topic), "still", 2);
            assertThat(receive(active, 2)).containsExactly("still0", "still1");
            active.close();
            publish(session, session.createProducer(topic), "then", 1);
            final MessageConsumer takeover = other.createDurableConsumer(other.createTopic("busy"), "sub");
            assertThat(receive(takeover, 1)).containsExactly("then0");
            takeover.close();
            other.unsubscribe("sub");
        }
    }

    @Test
    void shouldReattachASharedDurableSubscriptionOnTheSameSession() throws Exception {
        try (Connection c = Jms.connect(broker, "shared-again-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("shared-again");
            final MessageProducer producer = session.createProducer(topic);
            final MessageConsumer first = session.createSharedDurableConsumer(topic, "workers");
            publish(session, producer, "a", 2);
            assertThat(receive(first, 2)).containsExactly("a0", "a1");
            first.close();
            publish(session, producer, "b", 3);
            final MessageConsumer again = session.createSharedDurableConsumer(topic, "workers");
            final MessageConsumer second = session.createSharedDurableConsumer(topic, "workers");
            final Set<String> seen = new HashSet<>();
            final long deadline = System.currentTimeMillis() + RunningBroker.DEADLINE.toMillis();
            while (seen.size() < 3 && System.currentTimeMillis() < deadline) {
                for (MessageConsumer consumer : List.of(again, second)) {
                    final Message m = consumer.receive(50);
                    if (m != null) {
                        assertThat(seen.add(((TextMessage) m).getText())).as("duplicate %s", m).isTrue();
                    }
                }
            }
            assertThat(seen).containsExactlyInAnyOrder("b0", "b1", "b2");
            again.close();
            second.close();
            session.unsubscribe("workers");
            publish(session, producer, "gone", 1);
            final MessageConsumer fresh = session.createSharedDurableConsumer(topic, "workers");
            assertThat(fresh.receive(500)).as("a fresh subscription after unsubscribe").isNull();
            fresh.close();
            session.unsubscribe("workers");
        }
    }

    private static void publish(final Session session, final MessageProducer producer, final String prefix,
                                final int count) throws JMSException {
        for (int i = 0; i < count; i++) {
            producer.send(session.createTextMessage(prefix + i));
        }
    }

    private static List<String> receive(final MessageConsumer consumer, final int count) throws JMSException {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final Message m = consumer.receive(RunningBroker.DEADLINE.toMillis());
            assertThat(m).as("message %d of %d (got %s)", i, count, out).isNotNull();
            out.add(((TextMessage) m).getText());
        }
        return out;
    }
}
