package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The AMQP message mapping seen from JMS: every JMS message type round-trips, the JMS headers that travel in AMQP
 * fields keep their values, typed properties keep their types, expired messages are not delivered, delivery delays
 * hold messages back, and selectors work on headers and properties.
 */
@WithBroker
class JmsMessageMappingIT {
    private static RunningBroker broker;
    private static Connection connection;
    private static Session session;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        connection = Jms.connect(broker);
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @AfterAll
    static void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
    }

    private static Message roundTrip(final String queueName, final Message sent) throws Exception {
        final Queue queue = session.createQueue(queueName);
        try (MessageProducer producer = session.createProducer(queue);
             MessageConsumer consumer = session.createConsumer(queue)) {
            producer.send(sent);
            final Message m = consumer.receive(10_000);
            assertThat(m).isNotNull();
            return m;
        }
    }

    @Test
    void shouldRoundTripEveryJmsMessageType() throws Exception {
        final Message text = roundTrip("types", session.createTextMessage("héllo"));
        assertThat(text).isInstanceOf(TextMessage.class);
        assertThat(((TextMessage) text).getText()).isEqualTo("héllo");

        final BytesMessage bytes = session.createBytesMessage();
        bytes.writeBytes(new byte[] {1, 2, 3, (byte) 0xFF});
        final Message b = roundTrip("types", bytes);
        assertThat(b).isInstanceOf(BytesMessage.class);
        final byte[] read = new byte[(int) ((BytesMessage) b).getBodyLength()];
        ((BytesMessage) b).readBytes(read);
        assertThat(read).containsExactly(1, 2, 3, (byte) 0xFF);

        final MapMessage map = session.createMapMessage();
        map.setString("name", "widget");
        map.setInt("count", 3);
        map.setDouble("price", 9.5);
        map.setBoolean("inStock", true);
        final Message mm = roundTrip("types", map);
        assertThat(mm).isInstanceOf(MapMessage.class);
        assertThat(((MapMessage) mm).getString("name")).isEqualTo("widget");
        assertThat(((MapMessage) mm).getObject("count")).isEqualTo(3);
        assertThat(((MapMessage) mm).getDouble("price")).isEqualTo(9.5);
        assertThat(((MapMessage) mm).getBoolean("inStock")).isTrue();

        final StreamMessage stream = session.createStreamMessage();
        stream.writeString("first");
        stream.writeLong(42L);
        stream.writeBoolean(false);
        final Message sm = roundTrip("types", stream);
        assertThat(sm).isInstanceOf(StreamMessage.class);
        assertThat(((StreamMessage) sm).readString()).isEqualTo("first");
        assertThat(((StreamMessage) sm).readLong()).isEqualTo(42L);
        assertThat(((StreamMessage) sm).readBoolean()).isFalse();

        final ObjectMessage object = session.createObjectMessage(new ArrayList<>(List.of("a", "b")));
        final Message om = roundTrip("types", object);
        assertThat(om).isInstanceOf(ObjectMessage.class);
        assertThat(((ObjectMessage) om).getObject()).isEqualTo(List.of("a", "b"));
    }

    @Test
    void shouldKeepHeadersAndTypedProperties() throws Exception {
        final TextMessage sent = session.createTextMessage("with headers");
        sent.setJMSCorrelationID("corr-17");
        sent.setJMSType("invoice");
        sent.setJMSReplyTo(session.createQueue("replies"));
        sent.setStringProperty("s", "text");
        sent.setIntProperty("i", 7);
        sent.setLongProperty("l", 1L << 40);
        sent.setBooleanProperty("z", true);
        sent.setDoubleProperty("d", 2.5);
        sent.setFloatProperty("f", 1.25f);
        sent.setShortProperty("h", (short) 12);
        sent.setByteProperty("b", (byte) -3);
        final Queue queue = session.createQueue("headers");
        try (MessageProducer producer = session.createProducer(queue);
             MessageConsumer consumer = session.createConsumer(queue)) {
            producer.setPriority(7);
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            producer.send(sent);
            final Message m = consumer.receive(10_000);
            assertThat(m).isNotNull();
            assertThat(m.getJMSMessageID()).isEqualTo(sent.getJMSMessageID());
            assertThat(m.getJMSCorrelationID()).isEqualTo("corr-17");
            assertThat(m.getJMSType()).isEqualTo("invoice");
            assertThat(m.getJMSPriority()).isEqualTo(7);
            assertThat(m.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
            assertThat(m.getJMSTimestamp()).isEqualTo(sent.getJMSTimestamp());
            assertThat(m.getJMSDestination().toString()).contains("headers");
            assertThat(((Queue) m.getJMSReplyTo()).getQueueName()).isEqualTo("replies");
            assertThat(m.getObjectProperty("s")).isEqualTo("text");
            assertThat(m.getObjectProperty("i")).isEqualTo(7);
            assertThat(m.getObjectProperty("l")).isEqualTo(1L << 40);
            assertThat(m.getObjectProperty("z")).isEqualTo(true);
            assertThat(m.getObjectProperty("d")).isEqualTo(2.5);
            assertThat(m.getObjectProperty("f")).isEqualTo(1.25f);
            assertThat(m.getObjectProperty("h")).isEqualTo((short) 12);
            assertThat(m.getObjectProperty("b")).isEqualTo((byte) -3);
        }
    }

    @Test
    void shouldNotDeliverExpiredMessages() throws Exception {
        final Queue queue = session.createQueue("expiring");
        try (MessageProducer producer = session.createProducer(queue)) {
            producer.setTimeToLive(100);
            producer.send(session.createTextMessage("short-lived"));
            producer.setTimeToLive(60_000);
            producer.send(session.createTextMessage("long-lived"));
        }
        Thread.sleep(300); // let the first one expire: the outcome under test is about elapsed time itself
        try (MessageConsumer consumer = session.createConsumer(queue)) {
            final Message m = consumer.receive(10_000);
            assertThat(((TextMessage) m).getText()).isEqualTo("long-lived");
            assertThat(m.getJMSExpiration()).isGreaterThan(System.currentTimeMillis());
            assertThat(consumer.receive(300)).isNull();
        }
    }

    @Test
    void shouldHoldBackMessagesWithADeliveryDelay() throws Exception {
        final Queue queue = session.createQueue("delayed");
        try (MessageProducer producer = session.createProducer(queue);
             MessageConsumer consumer = session.createConsumer(queue)) {
            producer.setDeliveryDelay(1500);
            final long sentAt = System.currentTimeMillis();
            producer.send(session.createTextMessage("later"));
            assertThat(consumer.receive(700)).as("not before its delivery time").isNull();
            final Message m = consumer.receive(10_000);
            assertThat(m).isNotNull();
            assertThat(((TextMessage) m).getText()).isEqualTo("later");
            assertThat(System.currentTimeMillis() - sentAt).isGreaterThanOrEqualTo(1400);
            assertThat(m.getJMSDeliveryTime()).isGreaterThanOrEqualTo(sentAt + 1500);
        }
    }

    @Test
    void shouldSelectOnHeadersAndProperties() throws Exception {
        final Queue queue = session.createQueue("selected");
        try (MessageProducer producer = session.createProducer(queue)) {
            for (int i = 0; i < 6; i++) {
                final TextMessage m = session.createTextMessage("m" + i);
                m.setIntProperty("n", i);
                m.setStringProperty("color", i % 2 == 0 ? "red" : "blue");
                m.setJMSType(i < 3 ? "small" : "large");
                producer.setPriority(i == 5 ? 9 : 4);
                producer.send(m);
            }
        }
        // one queue: each message goes to one consumer, the first whose selector takes it
        assertThat(texts("selected", "color = 'red' AND n > 1")).containsExactly("m2", "m4");
        assertThat(texts("selected", "JMSType = 'large' AND color LIKE 'bl%'")).containsExactly("m3", "m5");
        assertThat(texts("selected", "JMSPriority > 4")).as("m5 was consumed already").isEmpty();
        assertThat(texts("selected", "n BETWEEN 0 AND 1 OR JMSCorrelationID IS NOT NULL")).containsExactly("m0", "m1");
        assertThat(texts("selected", "n >= 0")).isEmpty();
    }

    private static List<String> texts(final String queueName, final String selector) throws Exception {
        final List<String> out = new ArrayList<>();
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queueName), selector)) {
            Message m;
            while ((m = consumer.receive(700)) != null) {
                out.add(((TextMessage) m).getText());
            }
        }
        return out;
    }
}
