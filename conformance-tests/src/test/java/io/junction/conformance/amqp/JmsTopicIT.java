package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.Connection;
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
 * Topics with Qpid JMS: every non-durable subscriber gets every message published after it subscribed; durable
 * subscriptions (client id + name) keep messages across disconnects and broker restarts until unsubscribed; shared
 * subscriptions (durable or not) split their messages between their consumers.
 */
@WithBroker
class JmsTopicIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static List<String> receiveTexts(final MessageConsumer consumer, final int count) throws Exception {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final Message m = consumer.receive(10_000);
            assertThat(m).as("message %d of %d", i, count).isNotNull();
            out.add(((TextMessage) m).getText());
        }
        return out;
    }

    @Test
    void shouldDeliverEveryMessageToEveryNonDurableSubscriber() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("news");
            final MessageProducer producer = session.createProducer(topic);
            producer.send(session.createTextMessage("before anyone listened"));
            final MessageConsumer a = session.createConsumer(topic);
            final MessageConsumer b = session.createConsumer(topic);
            for (int i = 0; i < 5; i++) {
                producer.send(session.createTextMessage("news-" + i));
            }
            final List<String> expected = List.of("news-0", "news-1", "news-2", "news-3", "news-4");
            assertThat(receiveTexts(a, 5)).isEqualTo(expected);
            assertThat(receiveTexts(b, 5)).isEqualTo(expected);
            assertThat(a.receive(300)).isNull();
            a.close();
            producer.send(session.createTextMessage("after a left"));
            assertThat(receiveTexts(b, 1)).containsExactly("after a left");
        }
    }

    @Test
    void shouldKeepADurableSubscriptionAcrossDisconnectsAndRestarts() throws Exception {
        try (Connection c = Jms.connect(broker, "durable-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = session.createTopic("prices");
            session.createDurableSubscriber(topic, "watcher").close();
        }
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = session.createProducer(session.createTopic("prices"));
            producer.send(session.createTextMessage("p1"));
            producer.send(session.createTextMessage("p2"));
        }
        try (Connection c = Jms.connect(broker, "durable-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer sub = session.createDurableSubscriber(session.createTopic("prices"), "watcher");
            assertThat(receiveTexts(sub, 1)).containsExactly("p1");
            sub.close();
        }
        broker.restart();
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createTopic("prices")).send(session.createTextMessage("p3"));
        }
        try (Connection c = Jms.connect(broker, "durable-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer sub = session.createDurableSubscriber(session.createTopic("prices"), "watcher");
            assertThat(receiveTexts(sub, 2)).containsExactlyInAnyOrder("p2", "p3");
            assertThat(sub.receive(300)).isNull();
            sub.close();
            session.unsubscribe("watcher");
        }
        try (Connection c = Jms.connect(broker)) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createTopic("prices")).send(session.createTextMessage("p4"));
        }
        try (Connection c = Jms.connect(broker, "durable-client")) {
            final Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer sub = session.createDurableSubscriber(session.createTopic("prices"), "watcher");
            assertThat(sub.receive(500)).as("a fresh subscription after unsubscribe").isNull();
        }
    }

    @Test
    void shouldSplitASharedDurableSubscriptionBetweenItsConsumers() throws Exception {
        try (Connection c1 = Jms.connect(broker, "shared-client"); Connection c2 = Jms.connect(broker)) {
            final Session s1 = c1.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Session s2 = c1.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = s1.createTopic("events");
            final MessageConsumer a = s1.createSharedDurableConsumer(topic, "workers");
            final MessageConsumer b = s2.createSharedDurableConsumer(topic, "workers");
            final MessageConsumer other = s1.createConsumer(topic);
            final Session ps = c2.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = ps.createProducer(ps.createTopic("events"));
            for (int i = 0; i < 30; i++) {
                producer.send(ps.createTextMessage("e" + i));
            }
            assertThat(drain(a, b, 30)).hasSize(30);
            assertThat(receiveTexts(other, 30)).hasSize(30);
        }
    }

    @Test
    void shouldSplitASharedNonDurableSubscription() throws Exception {
        try (Connection c = Jms.connect(broker)) {
            final Session s1 = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Session s2 = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final Topic topic = s1.createTopic("ticks");
            final MessageConsumer a = s1.createSharedConsumer(topic, "tickers");
            final MessageConsumer b = s2.createSharedConsumer(topic, "tickers");
            final MessageProducer producer = s1.createProducer(topic);
            for (int i = 0; i < 20; i++) {
                producer.send(s1.createTextMessage("t" + i));
            }
            assertThat(drain(a, b, 20)).hasSize(20);
        }
    }

    /** Receives from two consumers until {@code count} distinct messages came; fails on a duplicate. */
    private static Set<String> drain(final MessageConsumer a, final MessageConsumer b, final int count)
            throws Exception {
        final Set<String> seen = new HashSet<>();
        final long deadline = System.currentTimeMillis() + 20_000;
        while (seen.size() < count && System.currentTimeMillis() < deadline) {
            for (MessageConsumer consumer : new MessageConsumer[] {a, b}) {
                final Message m = consumer.receive(50);
                if (m != null) {
                    assertThat(seen.add(((TextMessage) m).getText())).as("duplicate %s", m).isTrue();
                }
            }
        }
        assertThat(a.receive(200)).isNull();
        assertThat(b.receive(200)).isNull();
        return seen;
    }
}
